import Foundation
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// The audit summary is handed on to people who never open the console: it prints from the
/// browser as a clean A4 document, read back here from the PDF Chromium makes.
@Suite("The audit summary on paper", .timeLimit(.minutes(3)))
struct AuditSummaryPrintTests {
    private func decision(_ action: String, reason: String = "", at time: Date, kind: String = "library") -> AuditEntry {
        AuditEntry(
            recordedAt: time, actorId: 7, actorUsername: "maria", action: action, targetKind: kind, targetId: "1", targetSlug: "corner-books",
            targetName: "Corner Books", statusBefore: "pending", statusAfter: action.hasSuffix("reject") ? "rejected" : "approved", reason: reason,
            outcome: .applied, backendStatus: 200, requestId: "r", clientAddress: "192.0.2.1", userAgent: "test",
            itemCreatedAt: time.addingTimeInterval(-7_200), actionId: nil)
    }

    @Test(
        "printed to PDF on A4: the period and the team's zone in the title, decisions by kind and by reason as charts (one size each) and tables, the median wait and the chain's head, verified; no navigation or buttons"
    )
    func printsAsADocument() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: Rome time; approvals, rejections for a preset reason and in someone's own words
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await store.putTeam(on: "Europe/Rome")
            let day = try #require(ISOTime.parse("2026-11-10T10:00:00Z"))
            for index in 0..<3 { try await store.appendAudit(decision("library.approve", at: day.addingTimeInterval(Double(index) * 60))) }
            try await store.appendAudit(decision("library.reject", reason: "Not a book-sharing library.", at: day.addingTimeInterval(600)))
            try await store.appendAudit(decision("library.reject", reason: "Looks like a shop to me", at: day.addingTimeInterval(700)))
            try await browser.signInAsStaff(console: console)

            // act
            try await browser.go(console + "/audit/summary?from=2026-11-01&to=2026-11-30")
            _ = try await browser.source(containing: "Moderation summary")
            let pdf = try await browser.printToPDF()
            let file = directory.path("summary.pdf")
            try pdf.write(to: URL(fileURLWithPath: file))
            let text = try ChildProcess.run("/usr/bin/pdftotext", ["-layout", file, "-"]).output
            let info = try ChildProcess.run("/usr/bin/pdfinfo", [file]).output
            // Viewing the summary records nothing: the chain's head now is the one it printed.
            guard case .intact(_, let head) = try await store.verifyAuditChain() else {
                Issue.record("the chain should verify")
                return
            }

            // check
            #expect(info.contains("(A4)"), "\(info)")
            let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for expected in [
                "Moderation summary", "2026-11-01 – 2026-11-30", "times in Rome time", "5 decisions", "By kind of decision", "Library approved",
                "Rejections by reason", "Not a book-sharing library.", "Other reasons (own words)", "Median", "Audit chain:", "verified intact",
            ] {
                #expect(flat.contains(expected), "“\(expected)” on paper: \(flat)")
            }
            // The charts print once each, above their tables: a bar's label and its table row both read "Library approved".
            #expect(flat.components(separatedBy: "Library approved").count - 1 == 2, "the kind's chart and its table: \(flat)")
            #expect(flat.components(separatedBy: "Other reasons (own words)").count - 1 == 2, "the reason's chart and its table: \(flat)")
            let drawn = try await browser.execute("return document.querySelectorAll('.summary-chart svg').length") as? Int
            #expect(drawn == 3, "one drawing per chart: \(drawn ?? -1)")
            // The 64-digit head may wrap on paper; its digits are all there, in order.
            #expect(flat.replacingOccurrences(of: " ", with: "").contains(head), "the chain's head \(head) on paper")
            for absent in ["Sign out", "Dashboard", "Download as CSV", "Skip to content", "Print", "My devices"] {
                #expect(!flat.contains(absent), "“\(absent)” printed: \(flat)")
            }
        }
    }
}
