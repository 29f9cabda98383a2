import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 30, item 1, as a new moderator would do it: the rotation set up in Chromium by
/// pointing and clicking, and its form sent by the browser itself.
@Suite("In a real browser: the on-call rotation", .timeLimit(.minutes(3)))
struct RotationBrowserTests {
    @Test(
        "a rotation of three is built, reordered and saved by clicking; a mistyped right-to-left name with markup is refused next to the list, which stays, and kept to correct"
    )
    func rotationByClicking() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: maria and jonas have signed in once, so the console knows them; staff opens On call
            for name in ["maria", "jonas"] {
                _ = try #require(try await RawForms.signIn(base: console, login: name, password: SeedAccounts.demoStaffPassword))
            }
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/on-call")
            _ = try await browser.source(containing: "rotation-picker")

            // act: add maria and jonas from the list, a mistyped name, then move jonas up and save
            for name in ["maria", "jonas"] {
                try await browser.click("select[name=add] option[value='\(name)']")
                try await browser.click("button[name=edit][value=add]")
                _ = try await browser.source(containing: #"name="member" value="\#(name)""#)
            }
            let typo = "‏جوناس <b>jonass</b> 📚"
            try await browser.type(typo, into: "input[name=add_username]")
            try await browser.press(WebDriver.Key.enter)
            let refused = try await browser.source(containing: "does not know a staff member called")
            #expect(refused.contains("called \u{2068}‏جوناس &lt;b&gt;jonass&lt;/b&gt; 📚\u{2069}: they must sign in once first"), "named, escaped, set apart")
            let kept = try await browser.execute("return document.querySelector('input[name=add_username]').value;") as? String
            #expect(kept == typo, "the typed name is kept to correct")
            _ = try await browser.execute("document.querySelector('input[name=add_username]').value = '';")
            try await browser.click("button[name=edit][value='up:2']")
            let reordered = try await browser.source(containing: "Not saved yet")
            let order = reordered.components(separatedBy: #"<input type="hidden" name="member" value=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
            #expect(order == ["staff", "jonas", "maria"])
            try await browser.click("button[name=edit][value=save]")
            let saved = try await browser.source(containing: "Rotation saved")

            // check: what is stored and shown is the order clicked together
            #expect(saved.contains("staff → jonas → maria"))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            #expect(try await store.rotation()?.members.map(\.username) == ["staff", "jonas", "maria"])
        }
    }

    @Test(
        "before any rotation the team clock's zone is typed in the browser: right-to-left text with markup is refused in words and kept to correct, nothing changed; Asia/Tokyo and 12-hour are then saved and every page reads them"
    )
    func teamClockByTyping() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/on-call")
            _ = try await browser.source(containing: "team-clock-form")
            let store = try ModerationStore(path: directory.path("console.sqlite"))

            // act 1: a hostile zone, 12-hour chosen, sent with Enter
            let typo = "‏طوكيو <b>Tokyo</b> \"q\" 📚"
            _ = try await browser.execute("document.querySelector('.team-clock-form input[name=timeZone]').value = '';")
            try await browser.type(typo, into: ".team-clock-form input[name=timeZone]")
            try await browser.click(".team-clock-form select[name=hours] option[value='12']")
            try await browser.click(".team-clock-form button[type=submit]")
            let refused = try await browser.source(containing: "is not a time zone")

            // check 1: refused in words, escaped and set apart, the typed text kept, nothing stored
            #expect(refused.contains("“\u{2068}‏طوكيو &lt;b&gt;Tokyo&lt;/b&gt; \"q\" 📚\u{2069}” is not a time zone"), "\(refused)")
            #expect(refused.contains("Nothing was changed."))
            let kept = try await browser.execute("return document.querySelector('.team-clock-form input[name=timeZone]').value;") as? String
            #expect(kept == typo, "the typed zone is kept to correct")
            #expect(try await store.teamClockSetting() == .standard)

            // act 2: corrected
            _ = try await browser.execute("document.querySelector('.team-clock-form input[name=timeZone]').value = '';")
            try await browser.type("Asia/Tokyo", into: ".team-clock-form input[name=timeZone]")
            try await browser.click(".team-clock-form select[name=hours] option[value='12']")
            try await browser.click(".team-clock-form button[type=submit]")
            let saved = try await browser.source(containing: "Team clock saved")

            // check 2: stored, and the page's own times read Tokyo's 12-hour clock
            #expect(saved.contains("Team clock saved: 12-hour, Tokyo time."), "\(saved)")
            #expect(try await store.teamClockSetting() == TeamClockSetting(chosenZone: TimeZone(identifier: "Asia/Tokyo"), twelveHour: true))
            #expect(saved.firstMatch(of: #/Now it reads \d{4}-\d\d-\d\d \d{1,2}:\d\d [AP]M /#) != nil, "\(saved)")
        }
    }

    @Test(
        "after the rotation is changed in the browser, the note typed on Hand-offs is saved, not filed under an old hand-off, and reaches the next person's digest"
    )
    func noteAfterRotationChange() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: staff handed over to maria five minutes ago under the old rotation (its "shift 0")
            _ = try #require(try await RawForms.signIn(base: console, login: "maria", password: SeedAccounts.demoStaffPassword))
            _ = try #require(try await RawForms.signIn(base: console, login: "staff", password: SeedAccounts.demoStaffPassword))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let staff = try #require(try await store.staffMember(username: "staff"))
            let maria = try #require(try await store.staffMember(username: "maria"))
            let handedOver = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 - 300)
            func clock(_ date: Date) -> LocalTime {
                let parts = Calendar.current.dateComponents(in: .gmt, from: date)
                return LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0)
            }
            let old = try Rotation(
                members: [staff, maria], shiftDays: 1, handoff: clock(handedOver), timeZone: .gmt, startDate: LocalDate(handedOver, in: .gmt).adding(days: -1))
            try await store.saveRotation(old, audit: HandoffFixture.entry("rotation.save", by: staff, at: Date()), now: Date())
            let service = { (now: Date) in
                HandoffService(
                    store: store, builder: HandoffDigestBuilder(store: store), bundleID: "org.bookcorners.app", nudge: {}, now: { now },
                    logger: ConsoleFixture.quietLogger)
            }
            let first = try #require(await service(Date()).tick())
            #expect(first.outgoing == staff && first.incoming == maria)
            let tour = FormTour(browser: browser, console: console)
            try await browser.signInAsStaff(console: console)

            // act: the rotation changed so that staff is on call again, from yesterday, handing off in an hour
            let handoffAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 3_600)
            try await tour.open("/on-call", showing: "rotation-form")
            _ = try await browser.execute(
                """
                const form = document.querySelector('.rotation-form');
                form.querySelector('[name=handoff]').value = arguments[0];
                form.querySelector('[name=timeZone]').value = 'UTC';
                form.querySelector('[name=startDate]').value = arguments[1];
                """,
                arguments: [
                    clock(handoffAt).description,
                    LocalDate(handoffAt, in: .gmt).adding(days: -1).description,
                ])
            // the change puts staff on call now instead of maria: asked first, then handed over at once
            try await tour.send(".rotation-form button[value=save]", to: .onCallRotation, showing: "Saving this makes you on call now")
            try await tour.send(".rotation-move button[value=confirm]", to: .onCallRotation, showing: "Rotation saved")
            try await tour.open("/on-call/handoffs", showing: "handoff-note-text")
            try await tour.type("Report 12 needs a call.\nالمكتبة <b>ok</b>", into: "#handoff-note-text")
            let saved = try await tour.send(".handoff-note-form button[type=submit]", to: .onCallHandoffNote, showing: "class=\"flash\"")
            // the hand-off an hour from now, as the console builds it then
            let next = try #require(await service(handoffAt.addingTimeInterval(10)).tick())

            // check
            #expect(FormTour.flash(of: saved) == "Note saved for maria: it goes with the digest at your hand-off.")
            let handedBack = try #require(try await store.shiftHandoffs(limit: 3).dropFirst().first, "the change's own hand-off, maria to staff")
            #expect(handedBack.outgoing == maria && handedBack.incoming == staff && handedBack.id != first.id)
            #expect(next.id != first.id && next.id != handedBack.id && next.outgoing == staff && next.incoming == maria)
            #expect(next.digest.note?.text == "Report 12 needs a call.\nالمكتبة <b>ok</b>")
            #expect(try await store.shiftHandoff(id: first.id)?.digest.note == nil, "the old hand-off keeps its own (no) note")
        }
    }
}
