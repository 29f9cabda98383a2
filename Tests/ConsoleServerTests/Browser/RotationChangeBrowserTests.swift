import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, item 3: a note written for maria, then a rotation change that puts maria on call
/// now. The change says so before it is saved, and saving it hands over to maria at once with
/// the note; jonas, who comes after her, never gets it.
@Suite("In a real browser: a rotation change that moves who is on call now", .serialized, .timeLimit(.minutes(4)))
struct RotationChangeBrowserTests {
    @Test(
        "the change says 'Saving this makes maria on call now (until …) instead of you' before anything is saved, focus on its confirm button; Enter hands over to maria at once, with the note staff wrote for her, and her dashboard shows it",
        arguments: [true, false])
    func changeThatHandsOver(javaScript: Bool) async throws {
        try await ConsoleFixture.withBrowser(javaScript: javaScript) { browser, console, _, directory in
            // setup: staff has been on call for five minutes (jonas handed over, built), maria is next, then jonas
            for name in ["maria", "jonas", "staff"] {
                _ = try #require(try await RawForms.signIn(base: console, login: name, password: SeedAccounts.demoStaffPassword))
            }
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let staff = try #require(try await store.staffMember(username: "staff"))
            let maria = try #require(try await store.staffMember(username: "maria"))
            let jonas = try #require(try await store.staffMember(username: "jonas"))
            let handedOver = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 300)
            let parts = Calendar.current.dateComponents(in: .gmt, from: handedOver)
            let handoff = LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0)
            let start = LocalDate(handedOver, in: .gmt).adding(days: -3)
            let rotation = try Rotation(members: [staff, maria, jonas], shiftDays: 1, handoff: handoff, timeZone: .gmt, startDate: start)
            try await store.saveRotation(rotation, audit: HandoffFixture.entry("rotation.save", by: staff, at: Date()), now: Date())
            let service = { (now: Date) in
                HandoffService(
                    store: store, builder: HandoffDigestBuilder(store: store), bundleID: "org.bookcorners.app", nudge: {}, now: { now },
                    logger: ConsoleFixture.quietLogger)
            }
            let toStaff = try #require(await service(Date()).tick())
            #expect(toStaff.outgoing == jonas && toStaff.incoming == staff)
            let tour = FormTour(browser: browser, console: console)
            try await browser.signInAsStaff(console: console)
            try await tour.open("/on-call/handoffs", showing: "handoff-note-text")
            try await tour.type("Report 12 needs a call, maria.", into: "#handoff-note-text")
            try await tour.send(".handoff-note-form button[type=submit]", to: .onCallHandoffNote, showing: "Note saved for maria")

            // act 1: the first shift typed a day earlier, then Save rotation
            try await tour.open("/on-call", showing: "rotation-form")
            _ = try await browser.execute("document.querySelector('.rotation-form input[name=startDate]').value = '';")
            try await tour.type(start.adding(days: -1).description, into: ".rotation-form input[name=startDate]")
            let asked = try await tour.send(".rotation-form button[value=save]", to: .onCallRotation, showing: "rotation-move")

            // check 1: said before saving, the confirm button focused, nothing stored yet
            let text = Page.text(of: FormTour.main(of: asked))
            let day = LocalDate(handedOver.addingTimeInterval(86_400), in: .gmt) == LocalDate(Date(), in: .gmt) ? "today" : "tomorrow"
            #expect(text.contains("Saving this makes maria on call now (until \(day) \(handoff) UTC) instead of you."), "\(text)")
            #expect(
                text.contains("maria gets the hand-off from you, with the digest of the shift so far and the note you wrote for the next person."), "\(text)")
            let focused = try await browser.execute("return document.activeElement ? document.activeElement.textContent : null;") as? String
            #expect(focused == "Save and hand over to maria now", "focus is on the confirm button: \(focused ?? "nothing")")
            #expect(try await store.rotation()?.startDate == start, "nothing saved before the confirmation")
            #expect(try await store.shiftHandoffs(limit: 5).map(\.id) == [toStaff.id])

            // act 2: Enter on the focused button
            try await browser.press(WebDriver.Key.enter)
            let saved = try await browser.source(containing: "Rotation saved")

            // check 2: saved, handed over to maria now with the note; no hand-off left for jonas to take it
            #expect(
                FormTour.flash(of: saved).hasSuffix("maria is on call now: the hand-off from staff is built, with the note for the next person."),
                "\(FormTour.flash(of: saved))")
            #expect(try await store.rotation()?.startDate == start.adding(days: -1))
            let handoffs = try await store.shiftHandoffs(limit: 5)
            let toMaria = try #require(handoffs.first)
            #expect(handoffs.count == 2 && toMaria.outgoing == staff && toMaria.incoming == maria, "\(handoffs)")
            #expect(toMaria.digest.note?.text == "Report 12 needs a call, maria.")
            #expect(toMaria.startsAt == handedOver && toMaria.endsAt > handedOver, "the shift staff handed over, until the change")
            #expect(try await store.pendingHandoffNote(authorID: staff.id) == nil, "no note waits for staff's next hand-off")
            #expect(await service(Date()).tick() == nil, "the changed schedule's own hand-off to maria, before the change, is history")
            let toJonas = try #require(await service(toMaria.endsAt.addingTimeInterval(86_400)).tick())
            #expect(toJonas.outgoing == maria && toJonas.incoming == jonas && toJonas.digest.note == nil)

            // check 3: maria sees the hand-off and the note on her dashboard
            try await browser.deleteAllCookies()
            try await tour.signIn("maria", password: SeedAccounts.demoStaffPassword)
            let dashboard = try await tour.open("/", showing: "handoff-panel")
            #expect(Page.text(of: FormTour.main(of: dashboard)).contains("Report 12 needs a call, maria."))
        }
    }
}
