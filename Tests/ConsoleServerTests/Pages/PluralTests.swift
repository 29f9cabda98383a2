import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// Counted nouns read right everywhere: "Reject 1 library?", "1 matching entry", "library
/// rejected" beside a 1, "staff: 13 decisions" (never "staff 13").
@Suite("Plurals: one helper, every count", .timeLimit(.minutes(3)))
struct PluralTests {
    @Test("CountText picks the noun by number")
    func countText() {
        #expect(CountText.of(1, "library", "libraries") == "1 library")
        #expect(CountText.of(0, "library", "libraries") == "0 libraries")
        #expect(CountText.libraries(3) == "3 libraries")
        #expect(CountText.noun(1, "waits", "wait") == "waits")
    }

    @Test("the bulk confirmation of one library says 'Reject 1 library?' and 'Reject 1 library', never '1 libraries'")
    func bulkConfirmationOfOne() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        let page = BulkConfirmPage(
            layout: PageModels.layout("Confirm", active: .libraries), decision: "reject", verb: "Reject", count: 1,
            items: [.init(slug: "one", seen: "pending", name: PageModels.hostile, concerns: [])],
            heading: BulkConfirmPage.heading(verb: "Reject", count: 1), reason: "Not a library.", isReject: true, key: "k")
        // act
        let html = try renderer.render(page, with: "bulk-confirm").html
        // check
        #expect(html.contains("<h1>Reject 1 library?</h1>"))
        #expect(html.contains(">Reject 1 library</button>"))
        #expect(!html.contains("1 libraries"))
        #expect(html.contains(PageModels.escapedHostile))
        #expect(BulkConfirmPage.heading(verb: "Approve", count: 2) == "Approve 2 libraries?")
    }

    @Test("the audit page counts one matching entry in the singular")
    func auditMatching() async throws {
        // setup
        let renderer = try await PageRenderer(directory: RepositoryPaths.templates)
        let model = try #require(try PageModels.all().first { $0.template == "audit" }?.model as? AuditListPage)
        // act
        let text = model.child(named: "matchingText") as? String
        let html = try renderer.render(model, with: "audit").html
        // check
        #expect(text == "2 matching entries")
        #expect(html.contains("2 matching entries."))
        #expect(CountText.of(1, "matching entry", "matching entries") == "1 matching entry")
    }

    @Test("hand-off digests say 'library rejected' beside a 1 and 'libraries rejected' beside more")
    func handoffLabels() {
        #expect(HandoffDigest.label(forAction: "library.reject", count: 1) == "library rejected")
        #expect(HandoffDigest.label(forAction: "library.reject", count: 4) == "libraries rejected")
        #expect(HandoffDigest.label(forAction: "report.dismiss", count: 1) == "report dismissed")
        #expect(HandoffDigest.label(forAction: "something.else", count: 1) == "something.else")
    }

    @Test("the per-staff chart reads 'staff: 13 decisions', not 'staff 13'")
    func perStaffDescription() {
        // setup: 13 decisions by the user named "staff", one by maria
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let decisions =
            (0..<13).map { _ in
                DecisionRecord(recordedAt: now, actorUsername: "staff", action: "library.approve", queue: "library", outcome: .applied, secondsWaited: 60)
            } + [DecisionRecord(recordedAt: now, actorUsername: "maria", action: "library.reject", queue: "library", outcome: .applied, secondsWaited: 60)]
        // act
        let chart = StatisticsReport.perStaff(decisions, days: 30, csvHref: { $0 })
        // check
        #expect(chart.description == "staff: 13 decisions, maria: 1 decision.")
    }

    @Test("a list of one item says '1 item'")
    func pagerOfOne() {
        let pager = Pager(url: .reports, filters: [], pagination: Pagination.mirrored(BookCornersAPI.Page(clampingNumber: 1, size: 20), total: 1))
        #expect(pager.summary == "Page 1 of 1 · 1 item")
    }

    @Test("no template writes a number before a fixed plural noun (the count helper says it)")
    func templatesCountThroughTheHelper() throws {
        // setup
        let directory = URL(fileURLWithPath: RepositoryPaths.templates)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".mustache") }
        // Durations ("Last {{days}} days") are fixed choices of 30 or 90, never one.
        let nouns = "libraries|entries|decisions|items|reports|photos|messages|devices|notes"
        let pattern = try Regex(#"\{\{[A-Za-z.]+\}\} (\#(nouns))\b"#)
        // act
        let offenders = try names.flatMap { name -> [String] in
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            return text.matches(of: pattern).map { "\(name): \(text[$0.range])" }
        }
        // check
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
