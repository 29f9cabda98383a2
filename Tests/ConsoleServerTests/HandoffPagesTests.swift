@testable import ConsoleServer
import Foundation
import ModerationStore
import Sandbox
import Testing
import TestSupport

/// Hand-offs on the pages, over HTTP against the sandbox: the dashboard panel for the person
/// who took over, the note for the next person, follow-ups and dismissal.
@Suite("Pages: hand-offs", .timeLimit(.minutes(3)))
struct HandoffPagesTests {
    static let hostile = #"<script>alert("x")</script> & 'note'"#
    static let escapedHostile = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;note&#39;"

    /// staff's one-day shift (shift 0) ended five minutes ago; maria's (shift 1) is under way.
    private func rotation(in directory: TemporaryDirectory) async throws -> (fixture: HandoffFixture, staff: StaffMember, maria: StaffMember) {
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let staff = try #require(try await store.staffMember(username: SeedAccounts.demoStaffUsername))
        let maria = try #require(try await store.staffMember(username: "maria"))
        let handoffAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 300)
        let minute = Calendar.current.dateComponents(in: .gmt, from: handoffAt)
        let fixture = try await HandoffFixture(
            path: directory.path("console.sqlite"), members: [staff, maria], shiftDays: 1,
            handoff: LocalTime(hour: minute.hour ?? 0, minute: minute.minute ?? 0), zone: .gmt,
            startDate: LocalDate(handoffAt, in: .gmt).adding(days: -1))
        return (fixture, staff, maria)
    }

    private func buildHandoff(_ store: ModerationStore) async -> Int? {
        await HandoffService(
            store: store, builder: HandoffDigestBuilder(store: store), bundleID: "org.bookcorners.app", nudge: {},
            logger: ConsoleFixture.quietLogger
        ).tick()
    }

    @Test("the dashboard shows “Hand-off from staff” to maria, who took over, and to nobody else, until she dismisses it")
    func dashboardPanel() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: both signed in; staff wrote a note before the hand-off; the digest is built
            try await browser.signIn()
            let mariaBrowser = Browser(client: browser.client)
            try await mariaBrowser.signIn("maria", password: SeedAccounts.demoStaffPassword)
            let (fixture, staff, maria) = try await rotation(in: directory)
            try await fixture.decide("library.approve", by: staff, at: Date().addingTimeInterval(-3_600))
            try await fixture.store.saveHandoffNote(
                shiftIndex: 0, author: staff, text: Self.hostile, audit: HandoffFixture.entry("handoff.note", by: staff, at: Date()),
                now: Date().addingTimeInterval(-600))
            _ = await buildHandoff(fixture.store)
            _ = try #require(try await fixture.store.shiftHandoff(0))
            // act
            let mariaDashboard = try await mariaBrowser.get("/")
            let staffDashboard = try await browser.get("/")
            // check: maria's panel names staff, sums the shift up, quotes the note escaped, offers Dismiss
            let panel = try #require(mariaDashboard.element(withClass: "handoff-panel"))
            #expect(Page.text(of: String(try #require(panel.firstMatch(of: #/<h2[^>]*>.*?</h2>/#)).output)) == "Hand-off from staff")
            #expect(panel.contains("1 decision, "))
            #expect(panel.contains(#"<blockquote class="handoff-note" dir="auto">\#(Self.escapedHostile)</blockquote>"#))
            #expect(!mariaDashboard.contains(Self.hostile))
            #expect(panel.contains(#"action="/on-call/handoffs/0/dismiss""#))
            // maria is on call now: a link to her own note for the next person
            #expect(mariaDashboard.element(withClass: "handoff-note-link")?.contains("write a note for the next person") == true)
            #expect(staffDashboard.element(withClass: "handoff-panel") == nil)
            #expect(staffDashboard.element(withClass: "handoff-note-link") == nil)

            // act: staff cannot dismiss maria's hand-off; maria dismisses it from her dashboard
            let refused = try await browser.post("/on-call/handoffs/0/dismiss", form: [("csrf", staffDashboard.csrfToken ?? ""), ("from", "dashboard")])
            let dismissed = try await mariaBrowser.post(
                "/on-call/handoffs/0/dismiss", form: [("csrf", mariaDashboard.field("csrf", after: "handoff-panel") ?? ""), ("from", "dashboard")])
            // check
            #expect(refused.location == "/" && dismissed.location == "/")
            #expect(try await browser.get("/").contains("Only the person who took over can dismiss this hand-off."))
            let after = try await mariaBrowser.get("/")
            #expect(after.element(withClass: "handoff-panel") == nil)
            #expect(after.contains("Hand-off dismissed: it stays on the Hand-offs page."))
            let handoff = try #require(try await fixture.store.shiftHandoff(0))
            #expect(handoff.state == .dismissed && handoff.dismissedBy == "maria")
            let entry = try #require(try await fixture.store.auditEntries(limit: 5).first { $0.action == "handoff.dismiss" })
            #expect(entry.actorId == maria.id && entry.targetId == "0" && entry.statusBefore == "shown" && entry.statusAfter == "dismissed")
        }
    }

    @Test("the person on call writes the note on the Hand-offs page; after the hand-off only the outgoing person adds follow-ups")
    func noteAndFollowUps() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let mariaBrowser = Browser(client: browser.client)
            try await mariaBrowser.signIn("maria", password: SeedAccounts.demoStaffPassword)
            let (fixture, staff, _) = try await rotation(in: directory)
            _ = await buildHandoff(fixture.store)

            // act: maria, on call in shift 1, writes her note; an empty one is refused; staff may not write hers
            let mariaPage = try await mariaBrowser.get("/on-call/handoffs")
            let csrf = mariaPage.csrfToken ?? ""
            let empty = try await mariaBrowser.post("/on-call/handoffs/note", form: [("csrf", csrf), ("shift", "1"), ("text", "  ")])
            let saved = try await mariaBrowser.post("/on-call/handoffs/note", form: [("csrf", csrf), ("shift", "1"), ("text", Self.hostile)])
            let staffPage = try await browser.get("/on-call/handoffs")
            let notOnCall = try await browser.post("/on-call/handoffs/note", form: [("csrf", staffPage.csrfToken ?? ""), ("shift", "1"), ("text", "mine")])
            // check
            #expect(mariaPage.contains(#"<nav class="subnav" aria-label="On call"><a href="/on-call">Schedule</a> <a href="/on-call/alerts">Alerts &amp; targets</a> <a href="/on-call/handoffs" aria-current="page">Hand-offs</a> </nav>"#))
            #expect(mariaPage.field("shift", after: "handoff-note-form") == "1")
            #expect(staffPage.element(withClass: "handoff-note-form") == nil)
            #expect(empty.status == .badRequest && empty.contains("The note is empty: write something, or leave it."))
            #expect(saved.location == "/on-call/handoffs" && notOnCall.location == "/on-call/handoffs")
            let afterSave = try await mariaBrowser.get("/on-call/handoffs")
            #expect(afterSave.contains("Note saved: it goes with the hand-off digest."))
            // a note form of the shift that has ended files nothing under the next one
            let stale = try await mariaBrowser.post("/on-call/handoffs/note", form: [("csrf", csrf), ("shift", "0"), ("text", "late")])
            #expect(stale.location == "/on-call/handoffs")
            #expect(try await mariaBrowser.get("/on-call/handoffs").contains("The hand-off has already happened"))
            #expect(afterSave.contains(Self.escapedHostile) && !afterSave.contains(Self.hostile))
            #expect(try await browser.get("/on-call/handoffs").contains("Only the person on call now writes the note for the next person."))
            #expect(try await fixture.store.handoffNote(shiftIndex: 1)?.text == Self.hostile)
            #expect(try await fixture.store.handoffNote(shiftIndex: 0) == nil)
            // the past hand-off is listed and its digest shown
            let row = try #require(afterSave.element(withClass: "compact handoffs"))
            #expect(Page.text(of: row).contains("Shift 0"))
            #expect(Page.text(of: row).contains("staff → maria 0 not yet"))

            // act: follow-ups to shift 0's hand-off
            let detail = try await browser.get("/on-call/handoffs/0")
            let added = try await browser.post("/on-call/handoffs/0/follow-up", form: [("csrf", detail.csrfToken ?? ""), ("text", "Report 12 is done.")])
            let notOutgoing = try await mariaBrowser.post("/on-call/handoffs/0/follow-up", form: [("csrf", csrf), ("text", "Not mine.")])
            // check
            #expect(detail.element(withClass: "handoff-digest")?.contains("No alerts in this shift.") == true)
            #expect(detail.contains("No decisions in this shift."))
            #expect(added.location == "/on-call/handoffs/0" && notOutgoing.location == "/on-call/handoffs/0")
            let shown = try await mariaBrowser.get("/on-call/handoffs/0")
            #expect(shown.contains("Only the person who handed over can add a follow-up to this hand-off."))
            #expect(shown.contains(#"<blockquote class="handoff-note" dir="auto">Report 12 is done.</blockquote>"#))
            #expect(shown.element(withClass: "handoff-note-form") == nil)
            #expect(shown.contains("Dismiss from my dashboard"))
            #expect(try await fixture.store.handoffFollowUps(shiftIndex: 0).map(\.author) == [staff])
            #expect(try await fixture.store.auditEntries(limit: 10).map(\.action).filter { $0.hasPrefix("handoff.") } == ["handoff.followUp", "handoff.note"])
            // unknown or malformed shifts are the 404 page
            #expect(try await browser.get("/on-call/handoffs/7").status == .notFound)
            #expect(try await browser.get("/on-call/handoffs/-1").status == .notFound)
        }
    }
}
