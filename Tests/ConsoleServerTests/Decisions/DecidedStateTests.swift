import BookCornersAPI
import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 21, "The state of things is always true": a decision on its way looks like one, the
/// Pending actions panel reads as words, confirmations say what will really happen, decided
/// items say who decided them, reversals are confirmed, and the dashboard lists the oldest.
@Suite("Pages tell the true state of each item", .timeLimit(.minutes(3)))
struct DecidedStateTests {
    private static let hostile = #"maria <script>"x"</script> ‏עברית 📚"#

    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    /// Records a decision that waits an hour before it is sent (Book Corners' limit reached).
    @discardableResult
    private func queue(
        _ store: ModerationStore, slug: String, actorId: Int, username: String, wanted: ItemStatus = .approved
    ) async throws -> ModerationAction {
        var action = ModerationAction(
            idempotencyKey: "queued-\(slug)", actorId: actorId, actorUsername: username, targetKind: .library, targetKey: slug, statusSeen: .pending,
            statusWanted: wanted, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: Date())
        action.state = .waiting
        action.nextAttemptAt = Date().addingTimeInterval(3_600)
        return try await store.record(action).action
    }

    @Test("a decision waiting to be sent: its list row and its page say who queued what and when it sends, with no live Approve or Reject")
    func queuedDecisionShows() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: someone else's approval waits for Book Corners' limit
            try await browser.signIn()
            let store = try store(directory)
            let slug = try #require(try await store.oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
            try await queue(store, slug: slug, actorId: 999_999, username: Self.hostile)
            // act
            let list = try await browser.get("/libraries")
            let detail = try await browser.get("/libraries/\(slug)")
            // check
            let row = list.item(containing: "/libraries/\(slug)")
            #expect(row.contains("Approval queued by maria &lt;script&gt;&quot;x&quot;&lt;/script&gt;"), "\(row)")
            #expect(row.contains(", sends at <time datetime="))
            #expect(!row.contains("formaction=") && !row.contains(#"data-key="reject""#) && !row.contains(#"type="checkbox""#), "\(row)")
            #expect(detail.contains("Approval queued by maria &lt;script&gt;"), "\(detail)")
            #expect(!detail.contains(#"name="decision" value="approve""#) && !detail.contains(#"name="decision" value="reject""#))
            #expect(!detail.contains("<script>\"x\""))
        }
    }

    @Test("a decision Book Corners asks to wait says so without the log's 'next try <UTC>': the panel says when, in the viewer's terms")
    func heldDecisionMessage() async throws {
        let limits = RateLimitPolicy(windowSeconds: 300, reads: 10_000, writes: 1, logins: 100, refreshes: 100)
        try await ConsoleFixture.withConsole(rateLimits: limits) { browser, _, directory in
            // setup: the window's one write goes to the first approval
            try await browser.signIn()
            let slugs = try await store(directory).oldestMirroredLibraries(status: .pending, count: 2).map(\.slug)
            try #require(slugs.count == 2)
            var last: Page?
            // act
            for slug in slugs {
                let page = try await browser.get("/libraries/\(slug)")
                let key = try #require(page.field("key", after: "/libraries/\(slug)/decide"))
                let sent = try await browser.post(
                    "/libraries/\(slug)/decide", form: [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")])
                last = try await browser.get(try #require(sent.location))
            }
            // check: the second met the limit
            let page = try #require(last)
            #expect(
                page.contains("Your decision is recorded and waiting to be sent: Book Corners asked us to slow down. It appears under Pending actions"),
                "\(page)")
            #expect(!page.contains("UTC. It appears"), "no UTC time in the message")
        }
    }

    @Test("the Pending actions panel: one line that opens into the list; the library's name as a link, words, relative times, no next try before a failure")
    func pendingActionsPanelInWords() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try store(directory)
            let libraries = try await store.oldestMirroredLibraries(status: .pending, count: 3)
            try #require(libraries.count == 3)
            let library = libraries[1]
            let staffID = try await #require(try store.latestSessionStaffID())
            try await queue(store, slug: library.slug, actorId: staffID, username: SeedAccounts.demoStaffUsername)
            // One that Book Corners already asked to wait: the runner's message names its next try in UTC.
            var retried = try await queue(store, slug: libraries[2].slug, actorId: staffID, username: SeedAccounts.demoStaffUsername)
            retried.attempts = 1
            retried.outcomeMessage = "Book Corners asked us to slow down; next try 2026-11-25 06:40 UTC."
            let stored = retried
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in try stored.update(db) }
            // act
            let page = try await browser.get("/")
            // check
            let panel = try #require(page.element(withClass: "pending-actions"))
            #expect(panel.hasPrefix("<details"), "\(panel)")
            #expect(
                panel.contains(
                    "<summary><strong>Pending actions:</strong> 2 waiting: 2 at <time datetime=\""),
                "both wait for the same minute: one count, with when they send, in the viewer's zone: \(panel)")
            #expect(
                panel.contains("— next try in 60 min</span> <span class=\"pending-message\">Book Corners asked us to slow down.</span>"), "after a failure only"
            )
            // The name isolated (a right-to-left name does not carry " in <city>" along), then its city.
            let city = library.city.isEmpty ? "" : " in \(library.city)"
            #expect(
                panel.contains(
                    #"Approve <a href="/libraries/\#(library.slug)"><bdi>"#
                        + LibraryText.displayName(library.name).htmlEscapedForTest + "</bdi>" + city.htmlEscapedForTest + "</a>"), "\(panel)")
            #expect(panel.contains("sends in 60 min") || panel.contains("sends in 59 min"), "\(panel)")
            #expect(panel.components(separatedBy: "next try").count == 2, "the first decision, never tried, has no next try")
            #expect(!panel.contains("Next try") && !panel.contains("library.approve") && !panel.contains("next try 2026"))
            // A time reads on the team's clock, with or without script (this server's zone, UTC, before any rotation), only inside <time>.
            #expect(panel.components(separatedBy: " UTC").count == panel.components(separatedBy: "data-utc-title>").count)
        }
    }

    @Test("a library without a submitter: the rejection confirmation says nobody is told")
    func importedLibraryRejectionSaysNobodyIsTold() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let slugs = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try String.fetchAll(db, sql: "SELECT slug FROM mirrorLibrary WHERE status = 'pending' AND submitterId IS NULL AND goneAt IS NULL LIMIT 1")
                    + String.fetchAll(
                        db, sql: "SELECT slug FROM mirrorLibrary WHERE status = 'pending' AND submitterUsername IS NOT NULL AND goneAt IS NULL LIMIT 1")
            }
            try #require(slugs.count == 2)
            let page = try await browser.get("/libraries/\(slugs[0])")
            let fields = page.hiddenFields(ofFormPostingTo: "/libraries/\(slugs[0])/decide\" class=\"reject-form")
            // act
            let imported = try await browser.post(
                "/libraries/\(slugs[0])/decide",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("key", "k-imported"), ("seen", "pending"), ("decision", "reject"), ("reason", Self.hostile),
                ])
            let submitted = try await browser.post(
                "/libraries/\(slugs[1])/decide",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("key", "k-submitted"), ("seen", "pending"), ("decision", "reject"), ("reason", Self.hostile),
                ])
            // check
            _ = fields
            #expect(imported.status == .ok && imported.contains("has no submitter, so nobody is told"), "\(imported)")
            #expect(!imported.contains("its submitter will be told") && !imported.contains("its submitter,"))
            #expect(submitted.contains(", and its submitter, "), "\(submitted)")
            #expect(imported.contains("&lt;script&gt;&quot;x&quot;&lt;/script&gt;"))
        }
    }

    @Test("a rejected library: the list says who rejected it, when and why, offers no Reject; approving it is confirmed, naming the rejection")
    func decidedViewsAndReversal() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: reject one through the console
            try await browser.signIn()
            let store = try store(directory)
            let slug = try #require(try await store.oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
            let csrf = try #require(try await browser.get("/libraries/\(slug)").csrfToken)
            let rejected = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", csrf), ("key", "k-reject"), ("seen", "pending"), ("decision", "reject"), ("reason", Self.hostile), ("confirmed", "1"),
                ])
            try #require(rejected.status == .seeOther)
            try #require(try await store.mirroredLibrary(slug: slug)?.status == .rejected)

            // act
            let list = try await browser.get("/libraries?status=rejected")
            let detail = try await browser.get("/libraries/\(slug)")
            let approve = detail.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide")
            let asked = try await browser.post("/libraries/\(slug)/decide", form: approve)

            // check: the list row
            #expect(list.contains(#"<th scope="col">Decided</th>"#))
            let row = list.item(containing: "/libraries/\(slug)")
            #expect(row.contains("Rejected by \(SeedAccounts.demoStaffUsername)"), "\(row)")
            #expect(row.contains("&lt;script&gt;&quot;x&quot;&lt;/script&gt;"), "the reason, escaped")
            #expect(!row.contains(#"data-key="reject""#) && !row.contains("formaction="))
            #expect(list.contains("Review…") && !list.contains(#"data-key="reject""#), "decided rows offer Review…, never Reject…")
            // the library's page
            #expect(detail.contains("Rejected by \(SeedAccounts.demoStaffUsername) on <time"), "\(detail)")
            #expect(detail.contains("Approve…"))
            // the reversal is confirmed first, naming the rejection; nothing recorded until then
            #expect(approve.contains { $0 == ("decision", "approve") } && approve.contains { $0 == ("seen", "rejected") })
            #expect(asked.status == .ok && asked.contains("Approve a library that was rejected?"), "\(asked)")
            #expect(asked.contains("Rejected by \(SeedAccounts.demoStaffUsername) on ") && asked.contains("&lt;script&gt;&quot;x&quot;"))
            let staffID = try await #require(try store.latestSessionStaffID())
            #expect(try await store.recentDecisions(actorId: staffID, kind: .library, since: .distantPast).map(\.statusWanted) == [.rejected])
            let confirmed = try await browser.post("/libraries/\(slug)/decide", form: asked.hiddenFields(ofFormPostingTo: "/libraries/\(slug)/decide"))
            #expect(confirmed.status == .seeOther)
            #expect(try await store.recentDecisions(actorId: staffID, kind: .library, since: .distantPast).first?.statusWanted == .approved)
        }
    }

    @Test(
        "validation errors are shown on the same form with what was typed: an empty or too long reason, a bulk form with nothing selected (422, with the navigation)"
    )
    func validationErrorsInline() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let slug = try #require(try await store(directory).oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
            let csrf = try #require(try await browser.get("/libraries/\(slug)").csrfToken)
            let tooLong = Self.hostile + String(repeating: "x", count: 2_000)
            // act
            let empty = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", csrf), ("key", "k1"), ("seen", "pending"), ("decision", "reject"), ("reason", "  "),
                ])
            let long = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", csrf), ("key", "k2"), ("seen", "pending"), ("decision", "reject"), ("reason", tooLong),
                ])
            let ownButEmpty = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", csrf), ("key", "k3"), ("seen", "pending"), ("decision", "reject"), ("reason_preset", DecisionReason.ownReason), ("reason", ""),
                ])
            let bulk = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", csrf), ("decision", "reject"), ("reason_preset", DecisionController.presetReasons[2]), ("reason", "Typed <b>before</b> selecting"),
                    ("back", "/libraries?status=pending"),
                ])
            // check
            for page in [empty, long, ownButEmpty, bulk] {
                #expect(page.status == .unprocessableContent, "\(page)")
                #expect(page.contains(#"<nav aria-label="Main">"#), "the whole page, with its navigation")
                #expect(!page.contains("That did not work"))
            }
            #expect(empty.contains(#"<p class="field-error" id="reason-error" role="alert">A rejection needs a reason"#), "\(empty)")
            #expect(empty.contains(#"aria-invalid="true" aria-describedby="reason-error""#))
            #expect(empty.contains(#"<select id="reason_preset" name="reason_preset" data-key="reject" required"#), "a reason must be chosen (or written)")
            #expect(ownButEmpty.contains(#"<option value="own" selected>My own reason, written below</option>"#), "the choice kept")
            #expect(long.contains("at most 2000") && long.contains(">" + tooLong.htmlEscapedForTest + "</textarea>"), "what was typed, kept and escaped")
            #expect(bulk.contains("Select at least one library first.") && bulk.contains(#"class="bulk-bar""#))
            #expect(bulk.contains("<option selected>\(DecisionController.presetReasons[2])</option>"), "the reason chosen, kept")
            #expect(bulk.contains(#"<option value="reject" selected>Reject</option>"#), "the decision chosen, kept")
            #expect(bulk.contains(">Typed &lt;b&gt;before&lt;/b&gt; selecting</textarea>"), "what was typed, kept and escaped")
            await #expect(try store(directory).auditEntries().allSatisfy { $0.targetKind == "session" }, "nothing decided")
        }
    }

    @Test(
        "a photo rejection takes a reason: missing, it is asked for on the same card; given, it reaches the audit log and the push (Book Corners keeps none for photos)"
    )
    func photoRejectionReason() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try store(directory)
            let pendingPhotos = try await store.oldestMirroredPhotos(status: .pending, count: 50)
            let photo = try #require(pendingPhotos.first { $0.submitterId != nil })
            // Another photo has a rejection on its way: its card says so, with no Use or Reject.
            let other = try #require(pendingPhotos.first { $0.id != photo.id })
            var queued = ModerationAction(
                idempotencyKey: "queued-photo", actorId: 999_999, actorUsername: Self.hostile, targetKind: .photo, targetKey: String(other.id),
                statusSeen: .pending, statusWanted: .rejected, reason: "Blurred.", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: Date())
            queued.state = .waiting
            queued.nextAttemptAt = Date().addingTimeInterval(3_600)
            _ = try await store.record(queued)
            let grid = try await browser.get("/photos")
            let card = grid.item(containing: "/photos/\(other.id)/decide") + grid.item(containing: "Proposed photo \(other.id)\"")
            #expect(card.contains("Rejection queued by maria &lt;script&gt;"), "\(card)")
            #expect(!grid.contains("/photos/\(other.id)/decide"), "no decision form for it")
            #expect(grid.contains(#"<details class="photo-reject">"#) && grid.contains(DecisionController.photoPresetReasons[0]))
            #expect(grid.contains("Book Corners itself keeps no reason for photos, the console's audit log does"))
            #expect(grid.contains(#"name="reason_preset" required>"#))
            let csrf = try #require(grid.csrfToken)
            let form = [("csrf", csrf), ("seen", "pending"), ("decision", "reject"), ("back", "/photos")]
            // act
            let missing = try await browser.post("/photos/\(photo.id)/decide", form: form + [("key", "p1"), ("reason", "")])
            let reason = "Blurred: the books are not visible 📚 עברית"
            let sent = try await browser.post("/photos/\(photo.id)/decide", form: form + [("key", "p2"), ("reason", reason)])
            // check
            #expect(missing.status == .unprocessableContent && missing.contains(#"<details class="photo-reject" open>"#), "\(missing)")
            #expect(missing.contains(#"id="photo-\#(photo.id)-error" role="alert">A rejection needs a reason"#))
            #expect(sent.status == .seeOther)
            let entry = try await #require(try store.auditEntries().first { $0.action == "photo.reject" })
            #expect(entry.reason == reason)
            let message = try await #require(try store.outboxMessages().first { $0.eventType == .photoRejected })
            #expect(message.payload.contains("Reason: \(reason)"), "\(message.payload)")
        }
    }

    @Test("the photos list's decided view says who decided, when and why for a console decision, the status alone for one made elsewhere, with no backend read")
    func decidedPhotoCards() async throws {
        try await ConsoleFixture.withCountedConsole { browser, _, proxy, directory in
            // setup: one photo rejected in the console with a reason, another rejected where the console did not see it
            try await browser.signIn()
            let store = try store(directory)
            let pendingPhotos = try await store.oldestMirroredPhotos(status: .pending, count: 50)
            let photo = try #require(pendingPhotos.first { $0.submitterId != nil })
            let elsewhere = try #require(pendingPhotos.first { $0.id != photo.id })
            let csrf = try #require(try await browser.get("/photos").csrfToken)
            let sent = try await browser.post(
                "/photos/\(photo.id)/decide",
                form: [
                    ("csrf", csrf), ("key", "decided-card"), ("seen", "pending"), ("decision", "reject"), ("back", "/photos"), ("reason", Self.hostile),
                ])
            try #require(sent.status == .seeOther)
            try await #require(try store.mirroredPhotos(status: .rejected, limit: 500, offset: 0).contains { $0.id == photo.id })
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in
                try db.execute(sql: "UPDATE mirrorPhoto SET status = 'rejected' WHERE id = ?", arguments: [elsewhere.id])
            }
            let before = await proxy.forwardedInAll()
            // act
            let list = try await browser.get("/photos?status=rejected&page_size=100")
            // check
            let card = list.item(containing: "Proposed photo \(photo.id)\"")
            #expect(card.contains(#"<span class="decided-note">Rejected by \#(SeedAccounts.demoStaffUsername) <time datetime=""#), "\(card)")
            #expect(
                card.contains(#"<span class="muted decided-reason" dir="auto">maria &lt;script&gt;&quot;x&quot;&lt;/script&gt;"#),
                "the reason, escaped: \(card)")
            #expect(!card.contains("<script>\"x\""))
            let other = list.item(containing: "Proposed photo \(elsewhere.id)\"")
            #expect(other.contains(#"<span class="decided-note">Rejected</span>"#), "a decision the console did not see: its status alone: \(other)")
            #expect(!other.contains("decided-reason"))
            #expect(card.contains("<figcaption>Current</figcaption>"), "a rejected photo is still shown beside the library's")
            #expect(await proxy.forwardedInAll() == before, "no backend read per page view")
            // An approved photo is the library's photo now: no "current" beside it (the one it replaced is gone).
            let approved = try #require(pendingPhotos.first { $0.id != photo.id && $0.id != elsewhere.id })
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in
                try db.execute(sql: "UPDATE mirrorPhoto SET status = 'approved' WHERE id = ?", arguments: [approved.id])
            }
            let approvedCard = try await browser.get("/photos?status=approved&page_size=100").item(containing: "Proposed photo \(approved.id)\"")
            #expect(approvedCard.contains("<figcaption>Now the library's photo</figcaption>"), "\(approvedCard)")
            #expect(approvedCard.contains("It replaced any earlier photo of the library, which Book Corners does not keep."))
            #expect(!approvedCard.contains("Current photo of") && !approvedCard.contains("Compare large"))
            let viewer = try await browser.get("/photos/\(approved.id)")
            #expect(viewer.contains("<strong>Now the library's photo</strong>") && viewer.contains("there is nothing to compare it with"))
            #expect(!viewer.contains("Current photo of") && !viewer.contains(">Swipe<"), "nothing to compare or swipe to")
            // A later photo of the same library approved after it: this one is no longer the library's, and compares again.
            let later = try #require(pendingPhotos.first { ![photo.id, elsewhere.id, approved.id].contains($0.id) })
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in
                try db.execute(
                    sql: "UPDATE mirrorPhoto SET status = 'approved', libraryId = ?, createdAt = ? WHERE id = ?",
                    arguments: [approved.libraryId, approved.createdAt.addingTimeInterval(60), later.id])
            }
            let superseded = try await browser.get("/photos?status=approved&page_size=100").item(containing: "Proposed photo \(approved.id)\"")
            #expect(superseded.contains("<figcaption>Proposed</figcaption>") && superseded.contains("<figcaption>Current</figcaption>"), "\(superseded)")
            let newest = try await browser.get("/photos?status=approved&page_size=100").item(containing: "Proposed photo \(later.id)\"")
            #expect(newest.contains("<figcaption>Now the library's photo</figcaption>"))
        }
    }

    @Test("the dashboard lists the five oldest of each queue, from the mirror, however many wait")
    func dashboardListsTheOldestFive() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try store(directory)
            let oldest = try await store.oldestMirroredLibraries(status: .pending, count: 5).map(\.slug)
            try await #require(try store.mirrorSummary().map { $0.pendingLibraries > 5 } ?? true)
            // act
            let page = try await browser.get("/")
            // check
            let card = try #require(page.element(withClass: "oldest"))
            let linked = card.matches(of: #/href="/libraries/([^"]+)"/#).map { String($0.1) }
            #expect(linked == oldest, "\(linked)")
        }
    }
}
