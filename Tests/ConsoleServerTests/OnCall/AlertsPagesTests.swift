import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Alerts & targets over HTTP: acknowledging is audited and says in words when there is
/// nothing left to acknowledge; changing a target is audited and shows; queue pages and the
/// dashboard mark items past or near their target.
@Suite("On call: alerts and targets pages", .timeLimit(.minutes(3)))
struct AlertsPagesTests {
    /// Opens an overdue episode of `queue` told to the signed-in staff member, as the watcher would.
    private func openEpisode(_ store: ModerationStore, _ queue: ModerationQueue = .reports) async throws -> QueueAlert {
        let staff = try #require(try await store.staffMember(username: SeedAccounts.demoStaffUsername), "sign-in records the staff member")
        let now = Date()
        return try #require(
            try await store.openQueueAlert(
                queue, overdueCount: 4, oldestCreatedAt: now.addingTimeInterval(-30 * 3_600), targetMinutes: 24 * 60, telling: staff, now: now
            ) { recipient, _, _ in
                OutboxMessage(
                    id: UUID().uuidString, actionId: nil, recipientUserId: recipient.id, eventType: .queueOverdue, payload: "{}", headers: "{}",
                    createdAt: now)
            })
    }

    @Test("the person told acknowledges over HTTP: audited once; again it says who did; a closed alert says it is closed")
    func acknowledge() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let alert = try await openEpisode(store)
            let page = try await browser.get("/on-call/alerts")
            #expect(page.status == .ok)
            #expect(page.contains(#"<nav class="subnav" aria-label="On call">"#))
            #expect(page.contains(#"<a href="/on-call/alerts" aria-current="page">Alerts &amp; targets</a>"#))
            #expect(page.contains(#"<a href="/on-call">Schedule</a>"#) && page.contains(#"<a href="/on-call/handoffs">Hand-offs</a>"#))
            #expect(page.contains("Acknowledge — it is yours"), "the button stands out for the person told")
            let csrf = try #require(page.csrfToken)
            // act
            let refused = try await browser.post("/on-call/alerts/\(alert.id)/acknowledge", form: [("returnTo", "alerts")])
            let acknowledged = try await browser.post("/on-call/alerts/\(alert.id)/acknowledge", form: [("csrf", csrf), ("returnTo", "alerts")])
            let after = try await browser.get("/on-call/alerts")
            let again = try await browser.post("/on-call/alerts/\(alert.id)/acknowledge", form: [("csrf", csrf), ("returnTo", "dashboard")])
            let dashboard = try await browser.get("/")
            // check
            #expect(refused.status == .forbidden, "no CSRF token, no acknowledgement")
            #expect(acknowledged.status == .seeOther && acknowledged.location == "/on-call/alerts")
            #expect(after.contains("Acknowledged: Reports overdue. It will not escalate"))
            #expect(after.contains("Acknowledged by \(SeedAccounts.demoStaffUsername) at"))
            #expect(!after.contains("Acknowledge — it is yours"))
            #expect(again.location == "/", "back to the dashboard it was pressed on")
            #expect(dashboard.contains("Reports overdue was already acknowledged by you"))
            let entries = try await store.auditEntries(limit: 10).filter { $0.action == "alert.acknowledge" }
            #expect(entries.count == 1)
            #expect(entries.first?.targetId == String(alert.id) && entries.first?.actorUsername == SeedAccounts.demoStaffUsername)
            #expect(entries.first?.statusBefore == "open" && entries.first?.statusAfter == "acknowledged")
            // act: the queue went back under target
            #expect(try await store.closeQueueAlert(id: alert.id, now: Date()))
            try await browser.post("/on-call/alerts/\(alert.id)/acknowledge", form: [("csrf", csrf)])
            let closed = try await browser.get("/on-call/alerts")
            #expect(closed.contains("Reports is back under target since"))
            #expect(closed.contains("that alert is closed, nothing to acknowledge."))
            #expect(try await browser.post("/on-call/alerts/9999/acknowledge", form: [("csrf", csrf)]).status == .notFound)
            #expect(try await store.auditEntries(limit: 10).filter { $0.action == "alert.acknowledge" }.count == 1)
        }
    }

    @Test("the dashboard lists the alert under way with its Acknowledge button")
    func dashboardPanel() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            #expect(try await browser.get("/").contains(#"id="alerts-heading""#) == false, "no panel while nothing is overdue")
            let alert = try await openEpisode(store, .photos)
            // act
            let dashboard = try await browser.get("/")
            // check
            #expect(dashboard.contains(#"id="alerts-heading""#))
            #expect(dashboard.contains("Photos overdue"))
            #expect(dashboard.contains("4 past the 24 h target; the oldest has waited 1 d 6 h."))
            #expect(dashboard.contains(#"action="/on-call/alerts/\#(alert.id)/acknowledge""#))
            #expect(dashboard.contains(#"name="returnTo" value="dashboard""#))
        }
    }

    @Test("a target changed on the page is audited and shown; input out of range is refused with words and changes nothing")
    func changeTarget() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let page = try await browser.get("/on-call/alerts")
            #expect(page.contains("24 h <span class=\"muted\">(default)</span>"))
            let csrf = try #require(page.csrfToken)
            // act
            let changed = try await browser.post("/on-call/alerts/targets", form: [("csrf", csrf), ("queue", "reports"), ("hours", "36")])
            let after = try await browser.get("/on-call/alerts")
            let tooLong = try await browser.post("/on-call/alerts/targets", form: [("csrf", csrf), ("queue", "photos"), ("hours", "721")])
            let hostile = try await browser.post(
                "/on-call/alerts/targets", form: [("csrf", csrf), ("queue", #"<script>alert("x")</script>"#), ("hours", "5")])
            // check
            #expect(changed.status == .seeOther && changed.location == "/on-call/alerts")
            #expect(after.contains("Reports: items now count as overdue after 36 h."))
            #expect(after.contains("36 h <span class=\"muted\">(default 24 h)</span>"))
            #expect(try await store.queueTargets().minutes(.reports) == 36 * 60)
            let entry = try #require(try await store.auditEntries(limit: 5).first { $0.action == "queueTarget.update" })
            #expect(entry.targetId == "reports" && entry.statusBefore == "24 h" && entry.statusAfter == "36 h")
            #expect(entry.actorUsername == SeedAccounts.demoStaffUsername)
            #expect(tooLong.status == .badRequest && tooLong.contains("A target is a whole number of hours from 1 to 720. Photos keeps its target."))
            #expect(hostile.status == .badRequest && hostile.contains("Choose one of the three queues. No target was changed."))
            #expect(!hostile.contains("<script>alert"))
            #expect(try await store.queueTargets().minutes(.photos) == 72 * 60)
            #expect(try await store.auditEntries(limit: 10).filter { $0.action == "queueTarget.update" }.count == 1)
        }
    }

    @Test("queue pages and the dashboard mark waiting items past their target in words and a class; a longer target lifts the marks")
    func marksOnQueuePages() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: the sandbox's open reports are days old, past the 24-h default
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let open = try await store.oldestMirroredReports(status: .open, count: 100)
            // Past the longest target staff may set (30 days) some stay overdue; the rest are lifted.
            let pastLongest = open.filter { Date().timeIntervalSince($0.createdAt) > 720 * 3_600 }.count
            // act
            let reports = try await browser.get("/reports")
            let dashboard = try await browser.get("/")
            let csrf = try #require(reports.csrfToken)
            let changed = try await browser.post("/on-call/alerts/targets", form: [("csrf", csrf), ("queue", "reports"), ("hours", "720")])
            #expect(changed.status == .seeOther || changed.status == .found)
            let relaxed = try await browser.get("/reports")
            // check
            #expect(reports.contains(#"<span class="standing standing-overdue">Overdue: waited "#))
            #expect(reports.contains(", target 24\u{00A0}h</span>"))
            #expect(dashboard.contains(#"<span class="standing standing-overdue">Overdue: waited "#))
            #expect(open.count > pastLongest, "some open reports are younger than 30 days")
            #expect(relaxed.html.components(separatedBy: "standing-overdue").count - 1 == pastLongest)
            #expect(!relaxed.contains("target 24 h"))
        }
    }

    @Test("a queue mark keeps each number with its unit (a narrow cell wraps between \"45 d\" and \"21 h\", never inside one)")
    func markKeepsNumbersWithUnits() {
        #expect(QueueStandingMark.keptTogether("45 d 21 h") == "45\u{00A0}d 21\u{00A0}h")
        #expect(QueueStandingMark.keptTogether("48 h") == "48\u{00A0}h")
        #expect(QueueStandingMark.keptTogether("") == "")
    }
}
