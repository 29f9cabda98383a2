import Foundation
import GRDB
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Statistics page", .timeLimit(.minutes(3)))
struct StatisticsPageTests {
    private func svgs(in page: Page) -> [String] {
        page.html.components(separatedBy: "<svg ").dropFirst().compactMap { part in
            part.range(of: "</svg>").map { "<svg " + part[..<$0.upperBound] }
        }
    }

    @Test("renders with an empty audit log: backend charts drawn, moderation charts say there is nothing yet")
    func emptyAuditLog() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let page = try await browser.get("/statistics")
            #expect(page.status == .ok)
            let charts = svgs(in: page)
            #expect(charts.count == 2 * 11, "growth, countries, photos, decisions, 3 waiting times, staff, 3 ages; each for a laptop and a phone")
            for svg in charts { _ = try SVGReader.read(svg) }
            #expect(page.contains("No decisions in this period"))
            #expect(page.contains("Top countries"))
            #expect(page.contains(#"role="img""#))
            #expect(page.contains("Library submissions waiting now, by age"))
            #expect(page.contains(#"<a href="/statistics?days=30" aria-current="page""#))
        }
    }

    @Test("a long queue's age histogram holds every waiting item from the mirror, its half-year-old tail included")
    func longQueueKeepsItsTail() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // 240 more pending submissions: 40 half a year old (the tail that matters), 200 from today.
            try await SandboxLibraryRows.insert(
                (1...240).map { number in
                    [
                        "id": 100_000 + number, "slug": "long-queue-\(number)",
                        "createdAt": Date().addingTimeInterval(number <= 40 ? -200 * 86_400 - Double(number) : -Double(number) * 60),
                    ]
                }, intoSandboxAt: directory.path("sandbox.sqlite"))
            try await browser.signIn()
            let page = try await browser.get("/statistics")
            #expect(page.status == .ok)
            #expect(page.contains("300 waiting"), "\(page)")
            #expect(!page.contains("newest of 300") && !page.contains("oldest of 300"), "no sample: reading the mirror costs no backend read")
            let csv = try await browser.get("/statistics/data/age-library")
            #expect(csv.html.contains("> 3 months,40\r\n"), "every half-year-old submission is counted: \(csv.html)")
        }
    }

    @Test("draws the console's own decisions, per day, per kind and per staff member, with CSV for each chart")
    func withDecisions() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let hostile = "<b>Mallory</b> & \"co\""
            for (index, action) in ["library.approve", "library.approve", "library.reject", "report.resolve", "photo.approve"].enumerated() {
                let kind = String(action.prefix { $0 != "." })
                try await store.appendAudit(
                    AuditEntry(
                        recordedAt: Date().addingTimeInterval(-Double(index) * 86_400), actorId: 2, actorUsername: index == 0 ? hostile : "staff",
                        action: action, targetKind: kind, targetId: "\(index)", targetSlug: "s\(index)", targetName: "n", statusBefore: "pending",
                        statusAfter: "approved", reason: "", outcome: .applied, backendStatus: 200, requestId: "r", clientAddress: "127.0.0.1",
                        userAgent: "t", itemCreatedAt: Date().addingTimeInterval(-Double(index + 2) * 86_400), actionId: nil))
            }
            let page = try await browser.get("/statistics?days=90")
            #expect(page.status == .ok)
            for svg in svgs(in: page) { _ = try SVGReader.read(svg) }
            #expect(page.contains("5 decisions in the last 90 days: 2 libraries approved, 1 library rejected, 1 report resolved, 1 photo approved."))
            #expect(!page.contains("<b>Mallory</b>"))
            #expect(page.contains("&lt;b&gt;Mallory&lt;/b&gt; &amp; &quot;co&quot;"))
            let csv = try await browser.get("/statistics/data/staff?days=90")
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8; header=present")
            #expect(csv.html == "Staff member,Decisions\r\nstaff,4\r\n\"<b>Mallory</b> & \"\"co\"\"\",1\r\n")
            let decisions = try await browser.get("/statistics/data/decisions?days=30")
            #expect(decisions.html.split(separator: "\r\n").count == 31, "a header and one row per day, days without decisions included")
            #expect(try await browser.get("/statistics/data/nonsense").status == .notFound)
            #expect(try await browser.get("/statistics?days=7").contains("Decisions per day, last 30 days"), "unknown periods fall back to 30 days")
        }
    }
}
