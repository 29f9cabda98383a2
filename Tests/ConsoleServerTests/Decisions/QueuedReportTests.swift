import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// A report decision waiting to be sent shows as such on the reports list and on the report's
/// page, with no Resolve or Dismiss left to press, as libraries and photos do.
@Suite("Reports: a decision on its way looks like one", .timeLimit(.minutes(3)))
struct QueuedReportTests {
    private static let hostile = #"amir <script>"x"</script> ‏עברית 📚"#

    @Test("a queued dismissal by someone else: the row and the page say who and when, and offer no decision")
    func queuedDismissal() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: another staff member's dismissal waits for the next window
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let open = try await store.oldestMirroredReports(status: .open, count: 2)
            let queuedReport = try #require(open.first)
            let otherReport = try #require(open.last)
            try #require(queuedReport.id != otherReport.id)
            var action = ModerationAction(
                idempotencyKey: "queued-report", actorId: 999_999, actorUsername: Self.hostile, targetKind: .report, targetKey: String(queuedReport.id),
                statusSeen: .open, statusWanted: .dismissed, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: Date())
            action.state = .waiting
            action.nextAttemptAt = Date().addingTimeInterval(3_600)
            _ = try await store.record(action)
            // act
            let list = try await browser.get("/reports")
            let page = try await browser.get("/reports/\(queuedReport.id)")
            let other = try await browser.get("/reports/\(otherReport.id)")
            // check
            let row = list.item(containing: "data-item=\"report:\(queuedReport.id)\"")
            #expect(row.contains("Dismissal queued by amir &lt;script&gt;"), "\(row)")
            #expect(row.contains("sends at"))
            #expect(!row.contains("value=\"dismiss\"") && !row.contains("value=\"resolve\""), "no decision buttons on the row: \(row)")
            #expect(page.contains("Dismissal queued by amir &lt;script&gt;"), "\(page)")
            #expect(!page.contains(#"name="decision" value="resolve""#) && !page.contains(#"name="decision" value="dismiss""#))
            #expect(!page.contains(Self.hostile), "escaped")
            #expect(other.contains(#"name="decision" value="resolve""#), "a report with nothing on its way keeps its choices")
        }
    }
}
