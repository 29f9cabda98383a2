import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// The person behind an item, one glance away: their earlier libraries, photos and reports,
/// how each ended and why, from the mirror and the audit log (no backend read).
@Suite("Contributor history beside a library and a report", .timeLimit(.minutes(3)))
struct ContributorHistoryTests {
    @Test("a long history shows 12 items, every rejected one among them however old, and says how many of how many it shows")
    func longHistoryKeepsTheRejected() {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var history = ContributorHistory()
        history.libraries = (0..<25).map { index in
            // The two rejected ones are the oldest: newest first alone would leave them out.
            let status: LibraryStatus = index < 2 ? .rejected : index < 21 ? .approved : .pending
            return MirrorLibrary(
                id: index, slug: "library-\(index)", name: "Library \(index)", description: "", address: "", city: "Dublin", country: "IE",
                postalCode: "", lat: 53.3, lng: -6.2, photoUrl: "", thumbnailUrl: "", status: status, rejectionReason: index < 2 ? "Private garden" : "",
                submitterId: 7, submitterUsername: "priya", createdAt: start.addingTimeInterval(Double(index) * 86_400),
                lastConfirmedAt: start.addingTimeInterval(30 * 86_400))
        }
        history.libraryCounts = ["rejected": 2, "approved": 19, "pending": 4]
        let view = ContributorHistoryView(
            heading: "Also from priya", username: "priya", history: history, decisions: .init(), now: start.addingTimeInterval(30 * 86_400))
        #expect(view.items.count == 12)
        #expect(view.items.filter { $0.status == "rejected" }.map(\.name) == ["Library 1", "Library 0"], "both rejected, newest first")
        #expect(view.items.first?.name == "Library 24", "then the newest")
        #expect(view.child(named: "shownNote") as? String == "12 of 25 shown: every rejected one, then the newest.")
        #expect(view.child(named: "summary") as? String == "25 libraries: 19 approved, 2 rejected, 4 waiting")
        // Nothing rejected: the note does not speak of rejections.
        var approvedOnly = history
        approvedOnly.libraries = history.libraries.filter { $0.status != .rejected }
        approvedOnly.libraryCounts = ["approved": 19, "pending": 4]
        let noRejections = ContributorHistoryView(heading: "Also from priya", username: "priya", history: approvedOnly, decisions: .init(), now: start)
        #expect(noRejections.child(named: "shownNote") as? String == "12 of 23 shown: the newest.")
        history.libraries = Array(history.libraries.prefix(5))
        history.libraryCounts = ["rejected": 2, "approved": 3]
        let short = ContributorHistoryView(heading: "Also from priya", username: "priya", history: history, decisions: .init(), now: start)
        #expect(short.items.count == 5 && short.child(named: "isCut") as? Bool == false, "all shown, nothing to say")
    }

    @Test("read from the mirror: every rejected item is shown however many newer ones there are, and the counts are of everything")
    func storedHistoryKeepsTheRejected() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        // setup: 26 libraries of one submitter, the two rejected ones the oldest; the one on the page is the newest
        let libraries = (0..<26).map { index in
            let status: LibraryStatus = index < 2 ? .rejected : index < 21 ? .approved : .pending
            return MirrorLibrary(
                id: index + 1, slug: "library-\(index)", name: "Library \(index)", description: "", address: "", city: "Dublin", country: "IE",
                postalCode: "", lat: 53.3, lng: -6.2, photoUrl: "", thumbnailUrl: "", status: status, rejectionReason: index < 2 ? "Private garden" : "",
                submitterId: 7, submitterUsername: "priya", createdAt: start.addingTimeInterval(Double(index) * 86_400),
                lastConfirmedAt: start.addingTimeInterval(30 * 86_400))
        }
        try await store.upsertMirror(libraries: libraries)
        // act
        let view = try await ContributorHistoryView.load(
            heading: "Also from priya", accountId: 7, username: "priya", excludingLibrary: 26, store: store, now: start.addingTimeInterval(40 * 86_400))
        // check
        #expect(view.items.count == 12)
        #expect(view.items.filter { $0.status == "rejected" }.map(\.name) == ["Library 1", "Library 0"], "both rejected, however old")
        #expect(view.child(named: "shownNote") as? String == "12 of 25 shown: every rejected one, then the newest.")
        #expect(view.child(named: "summary") as? String == "25 libraries: 19 approved, 2 rejected, 4 waiting", "the page's own library left out")
    }

    @Test(
        "a library's page lists its submitter's earlier items with how each ended and the reason; a report's page lists the reporter's and the library submitter's"
    )
    func pages() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            defer { try? database.close() }
            // setup: a waiting library whose submitter had another rejected, with its reason
            let found = try database.read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT l.slug, l.submitterUsername, o.name, o.rejectionReason FROM mirrorLibrary l JOIN mirrorLibrary o
                        ON o.submitterId = l.submitterId AND o.id != l.id AND o.status = 'rejected' AND o.rejectionReason != ''
                        WHERE l.status = 'pending' AND l.goneAt IS NULL AND o.goneAt IS NULL ORDER BY l.id LIMIT 1
                        """)
            }
            let row = try #require(found, "the seed has a submitter rejected before")
            let (slug, submitter, rejectedName, reason) = (row[0] as String, row[1] as String, row[2] as String, row[3] as String)
            // act
            let page = try await browser.get("/libraries/\(slug)")
            // check
            let history = try #require(page.html.range(of: #"<section class="contributor-history""#).map { String(page.html[$0.lowerBound...].prefix(6000)) })
            #expect(history.contains(">Also from \(submitter)</h3>"))
            let line = history.components(separatedBy: "<li>").first { $0.contains(ConsoleHTMLContentType.escape(rejectedName)) } ?? ""
            #expect(line.contains("status-rejected") && line.contains(ConsoleHTMLContentType.escape(reason)), "the rejected one says why: \(line)")
            #expect(!history.contains(#"href="/libraries/\#(slug)""#), "not the library on the page itself")

            // a report by someone who reported before
            let earlierReporter = try await database.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT r.id FROM mirrorReport r WHERE r.reporterId IS NOT NULL AND r.goneAt IS NULL AND EXISTS
                        (SELECT 1 FROM mirrorReport o WHERE o.reporterId = r.reporterId AND o.id != r.id AND o.goneAt IS NULL) ORDER BY r.id LIMIT 1
                        """)
            }
            let reportID = try #require(earlierReporter, "the seed has a reporter who reported before")
            let report = try await browser.get("/reports/\(reportID)")
            #expect(report.contains(", who reported this</h3>") && report.contains(#"<span class="history-kind">Report</span>"#))
            let summaries = report.html.matches(of: #/<p class="history-summary">([^<]*)</p>/#).map { String($0.1) }
            #expect(summaries.contains { $0.contains(#/\d+ reports?: /#) }, "the reporter's counts in one line: \(summaries)")
            #expect(!report.contains(#"<a href="/reports/\#(reportID)" dir="auto">"#), "not the report on the page itself")
        }
    }

    @Test("until the mirror has read libraries, reports and photos once, the history says it may be incomplete; then it does not")
    func incompleteUntilFirstPass() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let before = try await ContributorHistoryView.load(heading: "Earlier from yuki", accountId: 7, username: "yuki", store: store, now: Date())
        #expect(before.incomplete == ContributorHistoryView.incompleteText && before.items.isEmpty)
        for scope in [MirrorScope.libraryList, .reportList] {
            try await store.saveMirrorScopeState(MirrorScopeState(scope: scope, lastPassCompletedAt: Date()))
        }
        let partly = try await ContributorHistoryView.load(heading: "Earlier from yuki", accountId: 7, username: "yuki", store: store, now: Date())
        #expect(!partly.incomplete.isEmpty, "photos not read once yet")
        try await store.saveMirrorScopeState(MirrorScopeState(scope: .photoList, lastPassCompletedAt: Date()))
        let after = try await ContributorHistoryView.load(heading: "Earlier from yuki", accountId: 7, username: "yuki", store: store, now: Date())
        #expect(after.incomplete.isEmpty && after.empty == "Nothing else from yuki in the console's copy of Book Corners.")
    }
}
