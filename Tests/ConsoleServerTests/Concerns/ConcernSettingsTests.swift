import Foundation
import ModerationStore
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The reasons' thresholds and suspect words staff set on the reasons page: audited, never
/// overwriting a colleague's change unseen; and the stored reasons a list's rows show.
@Suite("Reasons to look: settings staff tune, and the reasons rows show", .timeLimit(.minutes(3)))
struct ConcernSettingsTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a change on the reasons page is saved with an audit entry naming each change; bad input and a stale form change nothing and keep what was typed")
    func changeOnThePage() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let page = try await browser.get("/reasons")
            let csrf = try #require(page.csrfToken)
            let seen = try #require(page.field("seen", after: "id=\"settings\""))
            #expect(page.field("strongDuplicateMetres", after: "id=\"settings\"") == "25")
            func form(strong: String = "30", words: String = "casino\r\nfree money\r\n", seen: String) -> [(String, String)] {
                [
                    ("csrf", csrf), ("seen", seen), ("strongDuplicateMetres", strong), ("duplicateMetres", "50"), ("sameNameMetres", "200"),
                    ("burstSubmissions", "5"), ("strongRejections", "3"), ("suspectWords", words),
                ]
            }
            // act: out of range first, then a good change, then a second form still showing the old settings
            let bad = try await browser.post("/reasons/settings", form: form(strong: "60", words: "<script>x</script>\r\n", seen: seen))
            let saved = try await browser.post("/reasons/settings", form: form(seen: seen))
            let after = try await browser.get("/reasons")
            let stale = try await browser.post("/reasons/settings", form: form(strong: "10", seen: seen))
            // check
            #expect(bad.status == .badRequest)
            #expect(bad.contains("“Duplicate, strong within” (60 m) cannot be farther than “worth a look within” (50 m). Nothing was changed."))
            #expect(bad.field("strongDuplicateMetres", after: "id=\"settings\"") == "60", "what was typed stays in the form")
            #expect(bad.contains("&lt;script&gt;x&lt;/script&gt;") && !bad.contains("<script>x"))
            #expect(saved.status == .seeOther && saved.location == "/reasons#settings")
            #expect(after.contains("Saved: Duplicate, strong within: 25 m → 30 m; Suspect words added: casino, free money."))
            #expect(after.contains("Strong: another approved or waiting library within 30 m."))
            #expect(after.field("strongDuplicateMetres", after: "id=\"settings\"") == "30")
            #expect(try await store.concernSettings() == ConcernSettings(strongDuplicateMetres: 30, suspectWords: ["casino", "free money"]))
            let entries = try await store.auditEntries(limit: 10).filter { $0.action == "concernSettings.update" }
            #expect(entries.count == 1)
            #expect(entries.first?.reason == "Duplicate, strong within: 25 m → 30 m\nSuspect words added: casino, free money")
            #expect(entries.first?.actorUsername == SeedAccounts.demoStaffUsername)
            #expect(stale.status == .badRequest && stale.contains("Someone changed these settings while you were editing"))
            #expect(stale.field("strongDuplicateMetres", after: "id=\"settings\"") == "10", "the stale form's entries are kept to compare")
            #expect(stale.field("seen", after: "id=\"settings\"") != seen, "and carry the new version, so saving again replaces on purpose")
            #expect(try await store.concernSettings().strongDuplicateMetres == 30)
        }
    }

    @Test("saving new suspect words wakes the refresher: the filter by reason shows them within seconds, not at its next pass a minute later")
    func savingWakesTheRefresher() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.concernRefreshInterval = 600 }) { browser, _, _ in
            // setup: the first pass has stored every waiting library's reasons, and the next is ten minutes away
            try await browser.signIn()
            let firstPassBy = ContinuousClock.now + .seconds(30)
            while !(try await browser.get("/libraries?reason=duplicate")).contains("duplicate, "), ContinuousClock.now < firstPassBy {
                try await Task.sleep(for: .milliseconds(200))
            }
            try await Task.sleep(for: .seconds(6))  // past any quick second pass the first fill asked for
            let page = try await browser.get("/reasons")
            let form: [(String, String)] = [
                ("csrf", page.csrfToken ?? ""), ("seen", page.field("seen", after: "id=\"settings\"") ?? ""), ("strongDuplicateMetres", "25"),
                ("duplicateMetres", "50"), ("sameNameMetres", "200"), ("burstSubmissions", "5"), ("strongRejections", "3"), ("suspectWords", "sunrise\r\n"),
            ]
            // act
            let saved = try await browser.post("/reasons/settings", form: form)
            // check: within 3 s (the refresher would otherwise wait 600) the filter finds the word
            #expect(saved.status == .seeOther)
            let shownBy = ContinuousClock.now + .seconds(3)
            var filtered = try await browser.get("/libraries?reason=suspectWords")
            while !filtered.contains("suspect word: sunrise"), ContinuousClock.now < shownBy {
                try await Task.sleep(for: .milliseconds(100))
                filtered = try await browser.get("/libraries?reason=suspectWords")
            }
            #expect(filtered.contains("suspect word: sunrise"), "\(filtered)")
        }
    }

    @Test(
        "a list shows the reasons stored for a library as it is and the settings as they are; a changed library or setting is worked out afresh; a pass finding nothing new commits nothing"
    )
    func rowsShowStoredReasons() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        var library = MirrorLibrary(
            id: 1, slug: "library-1", name: "Corner Books", description: "", address: "Via Roma 1", city: "Florence", country: "IT",
            postalCode: "50100", lat: 43.771_234, lng: 11.251_234, photoUrl: "", thumbnailUrl: "", status: .pending, rejectionReason: "",
            submitterId: nil, submitterUsername: nil, createdAt: now, lastConfirmedAt: now)
        try await store.upsertMirror(libraries: [library])
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger).refreshOnce()
        #expect(try await LibraryConcerns.shown([library], in: store)[1]?.map(\.badge) == ["no photo"])
        // A pass that finds nothing new commits nothing: a commit would render every open page's copy anew.
        let before = try #require(store.changeStamp())
        #expect(await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger).refreshOnce() == .init(covered: 1, heldBack: 0))
        #expect(store.changeStamp() == before)
        // A marker stored for the library as it is, as a pass would store it: rows show what is stored.
        let marker = StoredLibraryConcern(kind: "markup", strength: "strong", badge: "stored marker", sentence: "Stored.")
        try await store.replaceLibraryConcerns([
            1: LibraryAssessment(fingerprint: LibraryConcerns.fingerprint(of: library, settings: .defaults), concerns: [marker])
        ])
        #expect(try await LibraryConcerns.shown([library], in: store)[1]?.map(\.badge) == ["stored marker"])
        // act: the library gets a photo; its stored reasons no longer count
        library.photoUrl = "/p.jpg"
        library.thumbnailUrl = "/p.jpg"
        try await store.upsertMirror(libraries: [library])
        #expect(try await LibraryConcerns.shown([library], in: store)[1]?.isEmpty == true)
        // act: stored for the new library, then the settings change: worked out afresh with the new list
        try await store.replaceLibraryConcerns([
            1: LibraryAssessment(fingerprint: LibraryConcerns.fingerprint(of: library, settings: .defaults), concerns: [marker])
        ])
        #expect(try await LibraryConcerns.shown([library], in: store)[1]?.map(\.badge) == ["stored marker"])
        let audit = AuditEntry(
            recordedAt: now, actorId: 3, actorUsername: "staff", action: "concernSettings.update", targetKind: "concernSettings", targetId: "reasons",
            targetSlug: "", targetName: "Reasons to look", statusBefore: "", statusAfter: "", reason: "Suspect words added: corner", outcome: .succeeded,
            backendStatus: nil, requestId: "", clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil)
        #expect(try await store.setConcernSettings(ConcernSettings(suspectWords: ["corner"]), expected: .defaults, audit: audit, now: now))
        #expect(try await LibraryConcerns.shown([library], in: store)[1]?.map(\.badge) == ["suspect word: corner"])
        // A second save expecting the old settings is refused: someone changed them since.
        #expect(try await store.setConcernSettings(.defaults, expected: .defaults, audit: audit, now: now) == false)
        // The next pass stores them; a decided library's are set aside with its assessment.
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger).refreshOnce()
        #expect(
            try await store.storedLibraryConcerns(fingerprints: [1: LibraryConcerns.fingerprint(of: library, settings: try await store.concernSettings())])[1]?
                .map(\.badge) == ["suspect word: corner"])
        library.status = .approved
        try await store.upsertMirror(libraries: [library])
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger).refreshOnce()
        #expect(
            try await store.storedLibraryConcerns(fingerprints: [1: LibraryConcerns.fingerprint(of: library, settings: try await store.concernSettings())])
                .isEmpty)
    }

    @Test(
        "a library reaching the mirror next to a waiting one, or a decision on the submitter's other submission, shows on the waiting one's row at once, not a refresh later; one far away leaves its stored reasons alone"
    )
    func storedReasonsFollowTheNeighbourhood() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        func library(_ id: Int, lat: Double, lng: Double, status: LibraryStatus, submitter: Int?) -> MirrorLibrary {
            MirrorLibrary(
                id: id, slug: "library-\(id)", name: "Corner Books \(id)", description: "", address: "Via Roma \(id)", city: "Florence", country: "IT",
                postalCode: "50100", lat: lat, lng: lng, photoUrl: "/p\(id).jpg", thumbnailUrl: "/p\(id).jpg", status: status, rejectionReason: "",
                submitterId: submitter, submitterUsername: submitter.map { "user\($0)" }, createdAt: now.addingTimeInterval(Double(id) * -86_400),
                lastConfirmedAt: now)
        }
        let waiting = library(1, lat: 43.771_234, lng: 11.251_234, status: .pending, submitter: 7)
        let earlier = library(2, lat: 45.0, lng: 9.0, status: .pending, submitter: 7)
        var rejectedBefore = library(5, lat: 45.1, lng: 9.1, status: .rejected, submitter: 7)
        rejectedBefore.rejectionReason = "Not a library"
        try await store.upsertMirror(libraries: [waiting, earlier, rejectedBefore])
        let refresher = ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger)
        await refresher.refreshOnce()
        let stored = try #require(try await LibraryConcerns.shown([waiting], in: store)[1])
        #expect(!stored.contains { $0.kind == .duplicate || $0.kind == .oftenRejected })
        // act: a library 2 km away reaches the mirror: nothing near changed, the stored reasons stay
        try await store.upsertMirror(libraries: [library(3, lat: 43.789, lng: 11.251_234, status: .approved, submitter: nil)])
        #expect(try await store.storedLibraryConcerns(fingerprints: [1: LibraryConcerns.fingerprint(of: waiting, settings: .defaults)])[1] != nil)
        // act: an approved library 12 m away reaches the mirror (the first pass, or another tool)
        try await store.upsertMirror(libraries: [library(4, lat: 43.771_334, lng: 11.251_284, status: .approved, submitter: nil)])
        let afterNeighbour = try #require(try await LibraryConcerns.shown([waiting], in: store)[1])
        #expect(afterNeighbour.first?.kind == .duplicate, "strong duplicate first: \(afterNeighbour.map(\.badge))")
        #expect(afterNeighbour.first?.badge == "likely duplicate, 12 m")
        // act: the next pass stores that; then the submitter's other submission is rejected elsewhere
        await refresher.refreshOnce()
        #expect(try await store.storedLibraryConcerns(fingerprints: [1: LibraryConcerns.fingerprint(of: waiting, settings: .defaults)])[1] != nil)
        var rejected = earlier
        rejected.status = .rejected
        rejected.rejectionReason = "Private garden"
        try await store.upsertMirror(libraries: [rejected])
        let afterRejection = try #require(try await LibraryConcerns.shown([waiting], in: store)[1])
        #expect(afterRejection.contains { $0.badge == "2 of 2 rejected" }, "\(afterRejection.map(\.badge))")
    }
}
