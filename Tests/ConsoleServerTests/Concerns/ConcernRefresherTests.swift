import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// The queue's filter by reason: every waiting library's reasons are worked out and stored,
/// a batch at a time, and the list filters by them; a decided library's are forgotten.
@Suite("Reasons to look: stored for the whole queue, filtered by", .timeLimit(.minutes(3)))
struct ConcernRefresherTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func library(_ id: Int, name: String = "Corner Books \(UUID().uuidString.prefix(4))", metresNorth: Double = 0) -> MirrorLibrary {
        MirrorLibrary(
            id: id, slug: "library-\(id)", name: name, description: "", address: "Via Roma \(id)", city: "Florence", country: "IT",
            postalCode: "50100", lat: 43.77 + metresNorth / GreatCircle.metresPerDegree, lng: 11.25 + Double(id) * 0.01, photoUrl: "/p.jpg",
            thumbnailUrl: "/p.jpg", status: .pending, rejectionReason: "", submitterId: nil, submitterUsername: nil,
            createdAt: now.addingTimeInterval(Double(id)), lastConfirmedAt: now)
    }

    @Test(
        "a pass over the whole queue in small batches stores each library's reasons; the list filters by a kind or any strong one; a decided library drops out")
    func refreshAndFilter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        // setup: seven libraries far apart; 2 has a twin 10 m away (strong), 4 one 40 m away (worth a look), 6 a link in its name
        var rows = (1...7).map { library($0) }
        var twin = library(20)
        twin.lng = rows[1].lng
        twin.lat = rows[1].lat + 10 / GreatCircle.metresPerDegree
        twin.status = .approved
        var near = library(21)
        near.lng = rows[3].lng
        near.lat = rows[3].lat + 40 / GreatCircle.metresPerDegree
        near.status = .approved
        rows[5].name = "Books at www.example.test"
        try await store.upsertMirror(libraries: rows + [twin, near])
        // act: batches of 3, so the pass has to go on past the first
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger, batchSize: 3).refreshOnce()
        // check
        func ids(_ concern: MirrorLibraryQuery.ConcernFilter?) async throws -> [Int] {
            try await store.mirroredLibraryPage(MirrorLibraryQuery(status: .pending, concern: concern), order: .oldest, limit: 50, offset: { _ in 0 })
                .rows.map(\.id)
        }
        #expect(try await ids(.kind("duplicate")) == [2, 4])
        #expect(try await ids(.anyStrong) == [2, 6])
        #expect(try await ids(.kind("markup")) == [6])
        #expect(try await ids(nil).count == 7)
        // act: 2 is approved, and the next pass runs
        rows[1].status = .approved
        try await store.upsertMirror(libraries: [rows[1]])
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger, batchSize: 3).refreshOnce()
        // check: it is no longer among those waiting with a strong reason, and its rows are gone
        #expect(try await ids(.anyStrong) == [6])
        let approvedWithReason = try await store.mirroredLibraryPage(
            MirrorLibraryQuery(status: .approved, concern: .kind("duplicate")), order: .oldest, limit: 50, offset: { _ in 0 })
        #expect(approvedWithReason.rows.isEmpty, "a decided library's reasons are forgotten")
    }

    @Test(
        "needs a look first: strong reasons, then worth a look, then none, oldest first within each; previous and next follow it; a decided library keeps its place and its reasons are recorded with the outcome"
    )
    func needsALookFirst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        // setup: 1 and 5 plain; 2 and 6 a link in the name (strong); 3 all capitals (worth a look); 4 plain
        var rows = (1...6).map { library($0) }
        rows[1].name = "Books at www.example.test"
        rows[5].name = "Read at www.example.test"
        rows[2].name = "BIG BOOK BOX"
        try await store.upsertMirror(libraries: rows)
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger, batchSize: 4).refreshOnce()
        let pending = MirrorLibraryQuery(status: .pending)
        // act + check: the page's order
        let page = try await store.mirroredLibraryPage(pending, order: .needsALookFirst, limit: 50, offset: { _ in 0 })
        #expect(page.rows.map(\.id) == [2, 6, 3, 1, 4, 5])
        #expect(try await store.mirroredLibraryPage(pending, order: .needsALookFirst, limit: 2, offset: { _ in 2 }).rows.map(\.id) == [3, 1])
        // previous and next of 3 (worth a look): the strong ones before, the plain ones after
        let around = try await store.mirroredLibraries(around: rows[2], matching: pending, order: .needsALookFirst, limit: 2)
        #expect(around.before.map(\.id) == [6, 2], "nearest first")
        #expect(around.after.map(\.id) == [1, 4])
        // act: 6 is rejected, and the next pass sets its reasons aside
        rows[5].status = .rejected
        try await store.upsertMirror(libraries: [rows[5]])
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger, batchSize: 4).refreshOnce()
        // check: it still ranks as strong (where a row decided in place stays), and "next" from it is 3
        #expect(try await store.concernRanks(of: [rows[5], rows[0]]) == [6: .strong, 1: .none])
        let afterDecided = try await store.mirroredLibraries(around: rows[5], matching: pending, order: .needsALookFirst, limit: 1)
        #expect(afterDecided.before.map(\.id) == [2] && afterDecided.after.map(\.id) == [3])
        let recorded = try await store.decidedLibraryConcerns(since: now.addingTimeInterval(-86_400 * 365 * 10))
        #expect(recorded.map { [$0.libraryId.description, $0.kind, $0.strength, $0.outcome] } == [["6", "markup", "strong", "rejected"]])
    }

    @Test("a decision reversed changes the recorded outcome to the one that stands; a library waiting again has no record until decided again")
    func reversedDecisionRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        // setup: a library with a strong reason, its reasons stored, then rejected
        var rows = [library(1)]
        rows[0].name = "Books at www.example.test"
        try await store.upsertMirror(libraries: rows)
        await ConcernRefresher(store: store, interval: 60, logger: ConsoleFixture.quietLogger).refreshOnce()
        rows[0].status = .rejected
        try await store.upsertMirror(libraries: rows)
        try await store.pruneLibraryConcerns()
        #expect(try await store.decidedLibraryConcerns(libraryId: 1).map(\.outcome) == ["rejected"])
        // act: the rejection is reversed into an approval
        rows[0].status = .approved
        try await store.upsertMirror(libraries: rows)
        try await store.pruneLibraryConcerns()
        // check
        #expect(try await store.decidedLibraryConcerns(libraryId: 1).map(\.outcome) == ["approved"], "the outcome that stands")
        // act: back to waiting; check: no record while it waits
        rows[0].status = .pending
        try await store.upsertMirror(libraries: rows)
        try await store.pruneLibraryConcerns()
        #expect(try await store.decidedLibraryConcerns(libraryId: 1).isEmpty)
        // A second prune with nothing to change writes nothing.
        #expect(try await store.pruneLibraryConcerns() == 0)
    }

    @Test("the libraries list filtered by a reason shows only rows with it, says which is chosen, and keeps it in each row's address")
    func listFilteredByReason() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.concernRefreshInterval = 1 }) { browser, _, _ in
            try await browser.signIn()
            // The seed has eight second submissions of libraries already on the map, 10–45 m away.
            var page = try await browser.get("/libraries?reason=duplicate&page_size=50")
            let refreshedBy = ContinuousClock.now + .seconds(30)
            // Reasons held back while the first fill moved their neighbours come a pass later.
            func shown(_ page: Page) -> Int { page.html.components(separatedBy: "<tr").filter { $0.contains("data-row") }.count }
            while shown(page) < 4, ContinuousClock.now < refreshedBy {
                try await Task.sleep(for: .milliseconds(500))
                page = try await browser.get("/libraries?reason=duplicate&page_size=50")
            }
            let rows = page.html.components(separatedBy: "<tr").dropFirst().filter { $0.contains("data-row") }
            #expect(rows.count >= 4, "\(rows.count) rows")
            let unlike = rows.filter { !$0.contains(" duplicate, ") && !$0.contains(">same name ") }
            #expect(unlike.isEmpty, "every row shown has a duplicate nearby: \(unlike.first?.prefix(1500) ?? "")")
            #expect(rows.allSatisfy { $0.contains("reason=duplicate") }, "a row's page keeps the list, filter included")
            #expect(page.contains(#"<option value="duplicate" selected>Duplicate nearby</option>"#))
            let strong = try await browser.get("/libraries?reason=strong&page_size=50")
            let strongRows = strong.html.components(separatedBy: "<tr").dropFirst().filter { $0.contains("data-row") }
            #expect(!strongRows.isEmpty && strongRows.allSatisfy { $0.contains("concern-strong") && !$0.contains(#"name="quick""#) })
            // A reason the console does not know filters nothing, and says nothing is chosen.
            let unknown = try await browser.get("/libraries?reason=%3Cscript%3E")
            #expect(unknown.status == .ok && unknown.contains(#"<option value="" selected>Any reason or none</option>"#))
        }
    }
    @Test(
        "the waiting list in 'needs a look first' order opens with the strong rows, says so, and a row's page leads on in that order; other lists do not offer it"
    )
    func needsALookFirstPage() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.concernRefreshInterval = 1 }) { browser, _, _ in
            try await browser.signIn()
            // Reasons are stored a pass at a time while the mirror fills: wait until the order has caught up with the rows.
            func strongFlags(_ page: Page) -> [Bool] {
                page.html.components(separatedBy: "<tr").dropFirst().filter { $0.contains("data-row") }.map { $0.contains("concern-strong") }
            }
            var page = try await browser.get("/libraries?order=needs-a-look&page_size=50")
            let refreshedBy = ContinuousClock.now + .seconds(60)
            func rowKeys(_ page: Page) -> [String] { page.html.matches(of: /data-item="([^"]+)"/).map { String($0.1) } }
            // And until two looks a second apart agree: while the mirror still fills, a pass may move a row
            // between the list and the row's page, and "next" would then rightly differ.
            var previousKeys: [String] = []
            while strongFlags(page).first != true || strongFlags(page) != strongFlags(page).sorted(by: { $0 && !$1 }) || rowKeys(page) != previousKeys,
                ContinuousClock.now < refreshedBy
            {
                previousKeys = rowKeys(page)
                try await Task.sleep(for: .seconds(1))
                page = try await browser.get("/libraries?order=needs-a-look&page_size=50")
            }
            #expect(page.contains(#"<strong aria-current="true">Needs a look first</strong>"#))
            let rows = page.html.components(separatedBy: "<tr").dropFirst().filter { $0.contains("data-row") }
            let strong = rows.map { $0.contains("concern-strong") }
            let firstPlain = try #require(strong.firstIndex(of: false), "the seed has rows without a strong reason")
            #expect(
                firstPlain > 0 && !strong[firstPlain...].contains(true),
                "strong rows first: \(strong) \(rows.filter { $0.contains("concern-strong") }.last ?? "")")
            #expect(rows.allSatisfy { $0.contains("order=needs-a-look") }, "a row's page keeps the order")
            // The first row's page: "Next" is the second row, as the list has it.
            let secondSlug = try #require(rows[1].firstMatch(of: /href="\/libraries\/([a-z0-9-]+)\?/)?.1)
            let firstLink = try #require(rows[0].firstMatch(of: /href="(\/libraries\/[a-z0-9-]+\?[^"]*)"/)?.1)
            let detail = try await browser.get(String(firstLink).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(
                detail.contains("/libraries/\(secondSlug)?"),
                "next leads to the list's second row, \(secondSlug): \(detail.html.components(separatedBy: "rel=\"next\"").dropFirst().first?.prefix(300) ?? "no next")"
            )
            // Decided libraries have no reasons to rank by, and reports none at all.
            let approved = try await browser.get("/libraries?status=approved&order=needs-a-look")
            #expect(!approved.contains("Needs a look first") && approved.contains(#"<strong aria-current="true">Newest first</strong>"#))
            let reports = try await browser.get("/reports?order=needs-a-look")
            #expect(!reports.contains("Needs a look first") && reports.contains(#"<strong aria-current="true">Oldest first</strong>"#))
        }
    }

    @Test("a library rejected through the console has its reasons recorded with the outcome within seconds, not at the refresher's next pass")
    func decidedReasonsRecordedAtOnce() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.concernRefreshInterval = 600 }) { browser, _, directory in
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            // setup: reasons stored for the waiting libraries (as a pass would), and one with a strong reason
            let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            defer { try? database.close() }
            let strongSlug = { () async throws -> String? in
                try await database.read { db in
                    try String.fetchOne(
                        db,
                        sql: """
                            SELECT m.slug FROM libraryConcern c JOIN mirrorLibrary m ON m.id = c.libraryId
                            WHERE c.strength = 'strong' AND m.status = 'pending' AND m.goneAt IS NULL ORDER BY m.id LIMIT 1
                            """)
                }
            }
            var slug: String?
            let storedBy = ContinuousClock.now + .seconds(30)
            while slug == nil, ContinuousClock.now < storedBy {
                await ConcernRefresher(store: store, interval: 600, logger: ConsoleFixture.quietLogger).refreshOnce()
                slug = try await strongSlug()
                if slug == nil { try await Task.sleep(for: .milliseconds(500)) }
            }
            let rejected = try #require(slug, "the seed has a waiting library with a strong reason")
            // The console's own refresher settles once the mirror stops changing (a pass that held
            // reasons back looks again 5 s later): after that, its next pass is 10 minutes away.
            var tick = try await store.concernEvidenceTick()
            var stableSince = ContinuousClock.now
            let settledBy = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now - stableSince < .seconds(7), ContinuousClock.now < settledBy {
                try await Task.sleep(for: .milliseconds(500))
                let now = try await store.concernEvidenceTick()
                if now != tick { (tick, stableSince) = (now, ContinuousClock.now) }
            }
            let page = try await browser.get("/libraries/\(rejected)")
            let key = try #require(page.field("key", after: #"class="reject-form""#))
            let form = [
                ("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", "A duplicate."), ("confirmed", "1"),
            ]
            // act
            _ = try await browser.post("/libraries/\(rejected)/decide", form: form)
            // check: its page and the reasons' figures say so within seconds
            var after = try await browser.get("/libraries/\(rejected)")
            let shownBy = ContinuousClock.now + .seconds(10)
            while !after.contains("When it was rejected, it had these reasons to look:"), ContinuousClock.now < shownBy {
                try await Task.sleep(for: .milliseconds(300))
                after = try await browser.get("/libraries/\(rejected)")
            }
            #expect(after.contains("When it was rejected, it had these reasons to look:"), "\(after)")
            let figures = try await browser.get("/reasons")
            #expect(!figures.contains("has been decided yet") && figures.contains("1 of 1 rejected (100 %)"), "\(figures)")
        }
    }

    @Test("until the mirror has read every library once, the waiting list and a waiting library's reasons say they may be missing; then they do not")
    func reasonsIncompleteUntilFirstPass() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let note = "Reasons may be missing: the console has not yet read all of Book Corners&#39; libraries once"
            // setup: the fill completed a pass; forget it, as on a first start
            var state = try await store.mirrorScopeState(.libraryList)
            let completed = try #require(state.lastPassCompletedAt, "the fill read every library")
            state.lastPassCompletedAt = nil
            try await store.saveMirrorScopeState(state)
            // check: said above the waiting rows and with a waiting library's reasons, not over a decided list
            let waiting = try await browser.get("/libraries")
            #expect(waiting.contains(#"<p class="banner reasons-incomplete" role="status">\#(note)"#), "\(waiting)")
            let slug = try #require(waiting.html.firstMatch(of: #/data-item="library:([a-z0-9-]+)"/#).map { String($0.1) })
            let library = try await browser.get("/libraries/\(slug)")
            #expect(library.contains(note) && !library.contains("Nothing stands out"), "no all-clear while it may be incomplete")
            #expect(!(try await browser.get("/libraries?status=approved")).contains(note))
            // act: the pass completes
            state.lastPassCompletedAt = completed
            try await store.saveMirrorScopeState(state)
            #expect(!(try await browser.get("/libraries")).contains(note))
            #expect(!(try await browser.get("/libraries/\(slug)")).contains(note))
        }
    }
}
