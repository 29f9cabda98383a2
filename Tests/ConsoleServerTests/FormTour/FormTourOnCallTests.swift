import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The form tour, part 3: every On call form — a hand-off dismissed, an alert acknowledged, the
/// note for the next person and a follow-up typed with line breaks, a queue target, an override
/// refused with its typed note kept and then added and removed, the calendar feed made and
/// stopped, the team clock set to 12-hour, and the rotation reordered and saved — sent by Chromium.
@Suite("Form tour: on call", .timeLimit(.minutes(3)))
struct FormTourOnCallTests {
    /// The routes this part sends a form to; `FormTourCoverageTests` adds up every part's.
    static let routes: Set<SiteURL.Route> = [
        .onCallHandoffDismiss, .onCallAlertAcknowledge, .onCallHandoffNote, .onCallHandoffFollowUp, .onCallTarget, .onCallOverrides,
        .onCallOverrideRemove, .onCallCalendarFeed, .onCallCalendarFeedRevoke, .onCallClock, .onCallRotation,
    ]

    /// Right-to-left text with markup, quotes and an emoji, on one line (Enter in a one-line field sends the form).
    static let oneLine = "שלום <b>bob</b> & \"covers\" 'x' 📚"

    @Test(
        "a hand-off dismissed and an alert acknowledged on the dashboard; a note and a follow-up as typed; a target; an override refused with its note kept, then added and removed; the feed made and stopped; the team clock set to 12-hour; the rotation reordered and saved"
    )
    func onCallTour() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let tour = FormTour(browser: browser, console: console)
            let fixture = try await Self.staffOnCall(console: console, directory: directory)
            try await browser.signInAsStaff(console: console)

            // the dashboard: maria's hand-off to staff dismissed, the alert acknowledged
            // (a quiet shift with no note: one line, its Dismiss a link-like button)
            try await tour.open("/", showing: "handoff-quiet")
            let dismissed = try await tour.send(".handoff-quiet form button", to: .onCallHandoffDismiss, showing: "Hand-off dismissed")
            #expect(!dismissed.contains("class=\"handoff-quiet\"") && !dismissed.contains("class=\"handoff-panel\""))
            let acknowledged = try await tour.send("form.acknowledge button", to: .onCallAlertAcknowledge, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: acknowledged).hasPrefix("Acknowledged: Reports overdue."))

            // the note for the next person, typed with line breaks, kept as typed
            try await tour.open("/on-call/handoffs", showing: "handoff-note-text")
            try await tour.type(FormTour.typed, into: "#handoff-note-text")
            let noted = try await tour.send(".handoff-note-form button[type=submit]", to: .onCallHandoffNote, showing: "Note saved for maria")
            #expect(noted.contains(">\(FormTour.inElement(FormTour.typed))</textarea>"))
            #expect(try await fixture.store.pendingHandoffNote(authorID: fixture.staff.id)?.text == FormTour.typed)

            // a follow-up to staff's own earlier hand-off
            try await tour.open("/on-call/handoffs/\(fixture.handedOver.id)", showing: "handoff-follow-up-text")
            try await tour.type(FormTour.typed, into: "#handoff-follow-up-text")
            let followedUp = try await tour.send(".handoff-note-form button[type=submit]", to: .onCallHandoffFollowUp, showing: "Follow-up added.")
            #expect(followedUp.contains("<blockquote class=\"handoff-note\" dir=\"auto\">\(FormTour.inElement(FormTour.typed))</blockquote>"))

            // a queue target
            try await tour.open("/on-call/alerts", showing: "target-form")
            _ = try await browser.execute("document.querySelector(\"form.target-form:has(input[value=reports]) input[name=hours]\").value = '';")
            try await tour.type("30", into: "form.target-form:has(input[value=reports]) input[name=hours]")
            let targeted = try await tour.send("form.target-form:has(input[value=reports]) button", to: .onCallTarget, showing: "class=\"flash\"")
            #expect(FormTour.flash(of: targeted) == "Reports: items now count as overdue after 30 h.")

            // an override ending before it starts is refused with its typed note kept; then added, then removed
            try await tour.open("/on-call", showing: "override-form")
            try await browser.click(".override-form select[name=staff] option[value=maria]")
            try await Self.setTimes(browser, from: "2026-12-02T10:00", to: "2026-12-01T10:00")
            try await tour.type(Self.oneLine, into: ".override-form input[name=note]")
            let refused = try await tour.send(".override-form button[type=submit]", to: .onCallOverrides, showing: "form-error")
            #expect(FormTour.main(of: refused).contains("form-error"))
            #expect(try await tour.value(of: ".override-form input[name=note]") == Self.oneLine, "the typed note is kept")
            try await Self.setTimes(browser, from: "2026-12-02T10:00", to: "2026-12-02T18:00")
            let added = try await tour.send(".override-form button[type=submit]", to: .onCallOverrides, showing: "maria covers")
            #expect(added.contains("<td data-label=\"Note\">\(FormTour.inElement(Self.oneLine))</td>"))
            let removed = try await tour.send("form[action$='/remove'] button", to: .onCallOverrideRemove, showing: "No override now or to come")
            #expect(FormTour.flash(of: removed).hasPrefix("Removed: maria no longer covers"))
            #expect(!removed.contains("<td data-label=\"Note\">"))

            // the calendar feed: made, then stopped
            let made = try await tour.send("form[action='/on-call/calendar-feed'] button", to: .onCallCalendarFeed, showing: "Your new feed address")
            #expect(made.contains("class=\"feed-url\""))
            try await tour.send("form[action='/on-call/calendar-feed/revoke'] button", to: .onCallCalendarFeedRevoke, showing: "Create my feed address")

            // the team clock: 12-hour chosen; the rotation keeps the zone, so the form offers only the hours
            #expect(try await browser.execute("return document.querySelector('.team-clock-form input[name=timeZone]') === null") as? Bool == true)
            try await browser.click(".team-clock-form select[name=hours] option[value='12']")
            let clocked = try await tour.send(".team-clock-form button[type=submit]", to: .onCallClock, showing: "Team clock saved")
            #expect(FormTour.flash(of: clocked).hasPrefix("Team clock saved: 12-hour, UTC. Times now read like "), "\(FormTour.flash(of: clocked))")
            #expect(try await browser.execute("return document.querySelector('.team-clock-form select[name=hours]').value") as? String == "12")

            // the rotation: staff moved up, then saved
            let moved = try await tour.send(".rotation-picker button[aria-label^='Move staff up']", to: .onCallRotation, showing: "Not saved yet")
            let order = moved.components(separatedBy: #"<input type="hidden" name="member" value=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
            #expect(order == ["staff", "maria"])
            // staff first puts staff's own turn on maria now: the page asks before saving (issue 47, item 3)
            try await tour.send(".rotation-form button[value=save]", to: .onCallRotation, showing: "Saving this makes maria on call now")
            try await tour.send(".rotation-move button[value=confirm]", to: .onCallRotation, showing: "Rotation saved")
            #expect(try await fixture.store.rotation()?.members.map(\.username) == ["staff", "maria"])
            #expect(Set(tour.routesSent) == Self.routes, "this part sent a form to each of its routes")
        }
    }

    /// The override form's two times, as its date-and-time pickers would fill them.
    private static func setTimes(_ browser: WebDriver, from: String, to: String) async throws {
        _ = try await browser.execute(
            "document.querySelector('.override-form input[name=startsAt]').value = arguments[0]; document.querySelector('.override-form input[name=endsAt]').value = arguments[1];",
            arguments: [from, to])
    }

    /// A rotation of maria then staff whose hand-off to staff was five minutes ago (built, so it
    /// is on staff's dashboard), an earlier hand-off from staff (for a follow-up), and an open
    /// alert on the reports queue told to staff.
    private static func staffOnCall(
        console: String, directory: TemporaryDirectory
    ) async throws -> (store: ModerationStore, staff: StaffMember, handedOver: ShiftHandoff) {
        _ = try #require(try await RawForms.signIn(base: console, login: "maria", password: SeedAccounts.demoStaffPassword))
        _ = try #require(try await RawForms.signIn(base: console, login: "staff", password: SeedAccounts.demoStaffPassword))
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let staff = try #require(try await store.staffMember(username: SeedAccounts.demoStaffUsername))
        let maria = try #require(try await store.staffMember(username: "maria"))
        let handoffAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 300)
        let minute = Calendar.current.dateComponents(in: .gmt, from: handoffAt)
        let fixture = try await HandoffFixture(
            path: directory.path("console.sqlite"), members: [maria, staff], shiftDays: 1,
            handoff: LocalTime(hour: minute.hour ?? 0, minute: minute.minute ?? 0), zone: .gmt, startDate: LocalDate(handoffAt, in: .gmt).adding(days: -1))
        _ = try #require(
            await HandoffService(
                store: store, builder: HandoffDigestBuilder(store: store), bundleID: "org.bookcorners.app", nudge: {}, logger: ConsoleFixture.quietLogger
            ).tick())
        let earlier = handoffAt.addingTimeInterval(-2 * 86_400)
        let digest = HandoffDigest(
            asOf: earlier, timeZone: "GMT", decisionsByKind: [], decisionsByPerson: [], queues: nil, alerts: [], outsideChanges: [], outsideChangeCount: 0,
            note: nil)
        let handedOver = try #require(
            try await fixture.store.recordHandoff(
                ShiftHandoff.Planned(
                    startsAt: earlier.addingTimeInterval(-86_400), endsAt: earlier, outgoing: staff, incoming: maria, digest: digest, builtAt: earlier)
            ) { handoff in
                OutboxMessage(
                    id: UUID().uuidString, actionId: nil, recipientUserId: maria.id, eventType: .shiftHandoff, payload: "{}", headers: "{}",
                    createdAt: earlier, dedupeKey: "handoff-\(handoff.id)")
            })
        _ = try await store.openQueueAlert(
            .reports, overdueCount: 2, oldestCreatedAt: Date().addingTimeInterval(-3 * 86_400), targetMinutes: 24 * 60, telling: staff, now: Date()
        ) { recipient, _, key in
            OutboxMessage(
                id: UUID().uuidString, actionId: nil, recipientUserId: recipient.id, eventType: .queueOverdue, payload: "{}", headers: "{}",
                createdAt: Date(), dedupeKey: key)
        }
        return (store, staff, handedOver)
    }
}
