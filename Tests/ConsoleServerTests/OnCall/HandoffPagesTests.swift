import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Hand-offs on the pages, over HTTP against the sandbox: the dashboard panel for the person
/// who took over, the note for the next person, follow-ups and dismissal.
@Suite("Pages: hand-offs", .timeLimit(.minutes(3)))
struct HandoffPagesTests {
    static let hostile = #"<script>alert("x")</script> & 'note'"#
    static let escapedHostile = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;note&#39;"

    /// staff's one-day shift ended five minutes ago; maria's is under way.
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

    private func buildHandoff(_ store: ModerationStore) async -> ShiftHandoff? {
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
            try await fixture.store.savePendingHandoffNote(
                author: staff, text: Self.hostile, audit: HandoffFixture.entry("handoff.note", by: staff, at: Date()),
                now: Date().addingTimeInterval(-600))
            let built = try #require(await buildHandoff(fixture.store))
            // act
            let mariaDashboard = try await mariaBrowser.get("/")
            let staffDashboard = try await browser.get("/")
            // check: maria's panel names staff, sums the shift up, quotes the note escaped, offers Dismiss
            let panel = try #require(mariaDashboard.element(withClass: "handoff-panel"))
            #expect(Page.text(of: String(try #require(panel.firstMatch(of: #/<h2[^>]*>.*?</h2>/#)).output)) == "Hand-off from staff")
            #expect(panel.contains("1 decision, "))
            #expect(panel.contains(#"<blockquote class="handoff-note" dir="auto">\#(Self.escapedHostile)</blockquote>"#))
            #expect(!mariaDashboard.contains(Self.hostile))
            #expect(panel.contains(#"action="/on-call/handoffs/\#(built.id)/dismiss""#))
            // maria is on call now: a link to her own note for the next person
            #expect(mariaDashboard.element(withClass: "handoff-note-link")?.contains("write a note for the next person") == true)
            #expect(staffDashboard.element(withClass: "handoff-panel") == nil)
            #expect(staffDashboard.element(withClass: "handoff-note-link") == nil)

            // act: staff cannot dismiss maria's hand-off; maria dismisses it from her dashboard
            let refused = try await browser.post(
                "/on-call/handoffs/\(built.id)/dismiss", form: [("csrf", staffDashboard.csrfToken ?? ""), ("from", "dashboard")])
            let dismissed = try await mariaBrowser.post(
                "/on-call/handoffs/\(built.id)/dismiss", form: [("csrf", mariaDashboard.field("csrf", after: "handoff-panel") ?? ""), ("from", "dashboard")])
            // check
            #expect(refused.location == "/" && dismissed.location == "/")
            #expect(try await browser.get("/").contains("Only the person who took over can dismiss this hand-off."))
            let after = try await mariaBrowser.get("/")
            #expect(after.element(withClass: "handoff-panel") == nil)
            #expect(after.contains("Hand-off dismissed: it stays on the Hand-offs page."))
            let handoff = try #require(try await fixture.store.shiftHandoff(id: built.id))
            #expect(handoff.state == .dismissed && handoff.dismissedBy == "maria")
            let entry = try #require(try await fixture.store.auditEntries(limit: 5).first { $0.action == "handoff.dismiss" })
            #expect(entry.actorId == maria.id && entry.targetId == String(built.id) && entry.statusBefore == "shown" && entry.statusAfter == "dismissed")
        }
    }

    @Test(
        "the person on call writes the note on the Hand-offs page; a late or foreign note keeps its text beside the error; after the hand-off only the outgoing person adds follow-ups"
    )
    func noteAndFollowUps() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let mariaBrowser = Browser(client: browser.client)
            try await mariaBrowser.signIn("maria", password: SeedAccounts.demoStaffPassword)
            let (fixture, staff, _) = try await rotation(in: directory)
            let built = try #require(await buildHandoff(fixture.store))

            // act: maria, on call, writes her note; an empty one is refused with the error next to the field
            let mariaPage = try await mariaBrowser.get("/on-call/handoffs")
            let csrf = mariaPage.csrfToken ?? ""
            let promised = try #require(mariaPage.field("handoffAt", after: "handoff-note-form"))
            let empty = try await mariaBrowser.post("/on-call/handoffs/note", form: [("csrf", csrf), ("handoffAt", promised), ("text", "  ")])
            let saved = try await mariaBrowser.post("/on-call/handoffs/note", form: [("csrf", csrf), ("handoffAt", promised), ("text", Self.hostile)])
            // check
            #expect(
                mariaPage.contains(
                    #"<nav class="subnav" aria-label="On call"><a href="/on-call">Schedule</a> <a href="/on-call/alerts">Alerts &amp; targets</a> <a href="/on-call/handoffs" aria-current="page">Hand-offs</a> </nav>"#
                ))
            #expect(Page.text(of: try #require(mariaPage.element(withClass: "handoff-current"))).contains("maria is on call; the hand-off to staff is at"))
            #expect(empty.status == .badRequest)
            let emptyForm = try #require(empty.element(withClass: "handoff-note-form"))
            #expect(emptyForm.contains("The note is empty: write something, or leave it.") && emptyForm.contains(#"aria-invalid="true""#))
            #expect(saved.location == "/on-call/handoffs")
            let afterSave = try await mariaBrowser.get("/on-call/handoffs")
            #expect(afterSave.contains("Note saved for staff: it goes with the digest at your hand-off."))
            #expect(afterSave.contains(Self.escapedHostile) && !afterSave.contains(Self.hostile))
            #expect(try await fixture.store.pendingHandoffNote(authorID: maria(fixture).id)?.text == Self.hostile)

            // act: staff, whose hand-off happened, sends a note late; then one promised for tomorrow's hand-off
            let staffPage = try await browser.get("/on-call/handoffs")
            let late = try await browser.post("/on-call/handoffs/note", form: [("csrf", staffPage.csrfToken ?? ""), ("text", "late\r\nline two")])
            let foreign = try await browser.post(
                "/on-call/handoffs/note", form: [("csrf", staffPage.csrfToken ?? ""), ("handoffAt", promised), ("text", "not my turn")])
            // check: the late note opens the hand-off with the text in the follow-up form; the other keeps it beside the error
            #expect(staffPage.element(withClass: "handoff-note-form") == nil)
            #expect(late.status == .badRequest && late.contains("Your hand-off to maria happened at"))
            #expect(late.element(withClass: "handoff-note-form")?.contains(">late\r\nline two</textarea>") == true)
            #expect(foreign.status == .badRequest)
            let kept = try #require(foreign.element(withClass: "handoff-kept"))
            #expect(kept.contains("and maria is on call now") && kept.contains(">not my turn</textarea>"))
            #expect(foreign.element(withClass: "handoff-current")?.contains("not my turn") == false, "never shown as maria's note")
            #expect(foreign.element(withClass: "handoff-current")?.contains(Self.escapedHostile) == true, "maria's own note is")
            #expect(try await fixture.store.pendingHandoffNote(authorID: staff.id) == nil)
            // the past hand-off is listed by who and when
            let row = try #require(afterSave.element(withClass: "compact handoffs"))
            #expect(Page.text(of: row).contains("Hand-off from staff to maria, "))
            #expect(!Page.text(of: row).contains("Shift 0"))

            // act: follow-ups to the hand-off
            let detail = try await browser.get("/on-call/handoffs/\(built.id)")
            let added = try await browser.post(
                "/on-call/handoffs/\(built.id)/follow-up", form: [("csrf", detail.csrfToken ?? ""), ("text", "Report 12 is done.")])
            let notOutgoing = try await mariaBrowser.post("/on-call/handoffs/\(built.id)/follow-up", form: [("csrf", csrf), ("text", "Not mine.")])
            // check
            #expect(detail.element(withClass: "handoff-digest")?.contains("No alerts in this shift.") == true)
            #expect(detail.contains("No decisions in this shift."))
            #expect(added.location == "/on-call/handoffs/\(built.id)")
            #expect(notOutgoing.status == .badRequest && notOutgoing.contains("Only the person who handed over can add a follow-up to this hand-off."))
            #expect(notOutgoing.contains(">Not mine.</textarea>"))
            let shown = try await mariaBrowser.get("/on-call/handoffs/\(built.id)")
            #expect(shown.contains(#"<blockquote class="handoff-note" dir="auto">Report 12 is done.</blockquote>"#))
            #expect(shown.element(withClass: "handoff-note-form") == nil)
            #expect(shown.contains("Dismiss from my dashboard"))
            #expect(try await fixture.store.handoffFollowUps(handoffID: built.id).map(\.author) == [staff])
            #expect(try await fixture.store.auditEntries(limit: 10).map(\.action).filter { $0.hasPrefix("handoff.") } == ["handoff.followUp", "handoff.note"])
            // unknown or malformed hand-offs are the 404 page
            #expect(try await browser.get("/on-call/handoffs/\(built.id + 7)").status == .notFound)
            #expect(try await browser.get("/on-call/handoffs/-1").status == .notFound)
        }
    }

    @Test("with an override ahead, the header, the dashboard and Hand-offs name the same next person at the same time")
    func oneAnswerForNext() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: maria is on call until tomorrow; staff covers from two hours from now
            try await browser.signIn()
            let mariaBrowser = Browser(client: browser.client)
            try await mariaBrowser.signIn("maria", password: SeedAccounts.demoStaffPassword)
            let (fixture, staff, maria) = try await rotation(in: directory)
            let coverStart = Date().addingTimeInterval(2 * 3_600)
            try await fixture.store.addOverride(
                staff: staff, startsAt: coverStart, endsAt: coverStart.addingTimeInterval(3_600), note: "",
                audit: HandoffFixture.entry("override.add", by: maria, at: Date()), now: Date())
            // "today 14:00 UTC" (or "tomorrow …" late in the day): the pages say the day in words.
            let at = OnCallTimeText(zone: .gmt).dayAndTime(coverStart, now: Date())
            // act
            let staffHandoffs = try await browser.get("/on-call/handoffs")
            let mariaDashboard = try await mariaBrowser.get("/")
            // check
            let header = Page.text(of: try #require(staffHandoffs.element(withClass: "oncall-line")))
            #expect(header.contains("On call: maria until \(at) ") && header.contains("next: you, from \(at)"))
            #expect(Page.text(of: try #require(staffHandoffs.element(withClass: "handoff-current"))).contains("the hand-off to staff is at \(at) "))
            let mariaHeader = Page.text(of: try #require(mariaDashboard.element(withClass: "oncall-line oncall-you")))
            #expect(mariaHeader.contains("You are on call until \(at) ") && mariaHeader.contains("next: staff"))
            #expect(Page.text(of: try #require(mariaDashboard.element(withClass: "handoff-note-link"))).contains("staff takes over at \(at)"))
        }
    }

    private func maria(_ fixture: HandoffFixture) async throws -> StaffMember {
        try #require(try await fixture.store.staffMember(username: "maria"))
    }
}
