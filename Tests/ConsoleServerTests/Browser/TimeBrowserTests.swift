import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, item 8: times as a person meets them in Chromium. One name for the team's zone on a
/// page listing dates on both sides of a clock change; "today" on the day itself; dates and times
/// typed as text on a 24-hour team (the browser's own pickers follow its locale: 11/27/2026,
/// 09:00 AM), refused in words and kept when wrong; an age's exact time reached by Tab and by a tap.
@Suite("In a real browser: times", .serialized, .timeLimit(.minutes(4)))
struct TimeBrowserTests {
    @Test(
        "on a Rome rotation, overrides in winter and in summer are typed as text and listed in Rome time, never UTC+1 and UTC+2; the shift ending today says 'until today'; a mistyped hand-off time and date are refused in words and kept"
    )
    func oneZoneTodayAndTypedTimes() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: staff then maria in a Rome rotation, staff's shift ending two hours from now
            _ = try #require(try await RawForms.signIn(base: console, login: "maria", password: SeedAccounts.demoStaffPassword))
            _ = try #require(try await RawForms.signIn(base: console, login: "staff", password: SeedAccounts.demoStaffPassword))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let staff = try #require(try await store.staffMember(username: "staff"))
            let maria = try #require(try await store.staffMember(username: "maria"))
            let rome = try #require(TimeZone(identifier: "Europe/Rome"))
            let ends = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 60).rounded(.down) * 60 + 7_200)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = rome
            let wall = calendar.dateComponents([.hour, .minute], from: ends)
            let handoff = LocalTime(hour: wall.hour ?? 0, minute: wall.minute ?? 0)
            let rotation = try Rotation(
                members: [maria, staff], shiftDays: 1, handoff: handoff, timeZone: rome, startDate: LocalDate(ends, in: rome).adding(days: -2))
            try await store.saveRotation(rotation, audit: HandoffFixture.entry("rotation.save", by: staff, at: Date()), now: Date())
            let tour = FormTour(browser: browser, console: console)
            try await browser.signInAsStaff(console: console)
            let year = LocalDate(Date(), in: rome).year + 1

            // act 1: two overrides typed as text, one in winter (UTC+1), one in summer (UTC+2)
            try await tour.open("/on-call", showing: "override-form")
            let kinds =
                try await browser.execute(
                    "return ['startsAt', 'endsAt'].map(n => document.querySelector('.override-form input[name=' + n + ']').type).concat(['handoff', 'startDate'].map(n => document.querySelector('.rotation-form input[name=' + n + ']').type));"
                ) as? [String]
            for (from, to) in [("\(year)-01-12 09:00", "\(year)-01-12 18:00"), ("\(year)-07-12 09:00", "\(year)-07-12 18:00")] {
                try await browser.click(".override-form select[name=staff] option[value=maria]")
                try await tour.type(from, into: ".override-form input[name=startsAt]")
                try await tour.type(to, into: ".override-form input[name=endsAt]")
                try await tour.send(".override-form button[type=submit]", to: .onCallOverrides, showing: "maria covers")
            }
            let listed = try await browser.execute("return document.querySelector('main').innerText") as? String ?? ""
            let banner = try await browser.execute("return document.body.innerText") as? String ?? ""

            // check 1: text fields; one zone name; the shift's end said as today (or tomorrow, past midnight)
            #expect(kinds == ["text", "text", "text", "text"], "date and time fields are text, not the browser's pickers: \(kinds ?? [])")
            #expect(listed.contains("\(year)-01-12 09:00 Rome time"), "\(listed)")
            #expect(listed.contains("\(year)-07-12 09:00 Rome time"), "\(listed)")
            #expect(listed.firstMatch(of: /UTC[+\-]\d/) == nil, "no offset shown as a zone's name: \(listed)")
            let day = LocalDate(ends, in: rome) == LocalDate(Date(), in: rome) ? "today" : "tomorrow"
            #expect(listed.contains("until \(day) \(handoff) Rome time"), "\(listed)")
            #expect(banner.contains("You are on call until \(day) \(handoff) Rome time"), "the header says it too: \(banner.prefix(400))")

            // act 2: a hand-off time no clock shows, typed with real keys, then Save rotation
            _ = try await browser.execute("document.querySelector('.rotation-form input[name=handoff]').value = '';")
            try await tour.type("24:30", into: ".rotation-form input[name=handoff]")
            let refused = try await tour.send(".rotation-form button[value=save]", to: .onCallRotation, showing: "form-error")

            // check 2: refused in words, kept, nothing changed
            let problem = try await browser.execute("return document.querySelector('.form-error').innerText") as? String ?? ""
            #expect(problem.contains("24:30") && problem.hasSuffix("is not a time of day: write it as 09:00. Nothing was changed."), "\(problem)")
            #expect(FormTour.main(of: refused).contains("form-error"))
            #expect(try await tour.value(of: ".rotation-form input[name=handoff]") == "24:30", "the typed time is kept to correct")
            #expect(try await store.rotation()?.handoff == handoff)

            // act 3: a date on the audit page that no calendar has
            try await tour.open("/audit", showing: "audit-filters")
            let auditKind = try await browser.execute("return document.querySelector('#audit-filters input[name=from]').type") as? String
            try await tour.type("2026-02-30", into: "#audit-filters input[name=from]")
            try await browser.press(WebDriver.Key.enter)
            _ = try await browser.source(containing: "is not a date like")

            // check 3
            #expect(auditKind == "text")
            let auditText = try await browser.execute("return document.querySelector('main').innerText") as? String ?? ""
            #expect(auditText.contains("From “2026-02-30” is not a date like 2026-11-01, so it was ignored."), "\(auditText.prefix(600))")
            #expect(try await tour.value(of: "#audit-filters input[name=from]") == "2026-02-30", "the typed date is kept to correct")
        }
    }

    @Test("on the waiting libraries, an age such as '11 d ago' shows its exact time when reached by Tab, and when tapped")
    func exactTimeByKeyboardAndTap() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries")
            _ = try await browser.source(containing: " ago</time>")

            // act 1: Tab from the top of the page until a time has focus
            var reached: [String]?
            for _ in 0..<120 {
                try await browser.press(WebDriver.Key.tab)
                reached =
                    try await browser.execute(
                        """
                        const active = document.activeElement;
                        if (!active || active.tagName !== 'TIME') return null;
                        return [active.textContent, active.title, getComputedStyle(active, '::after').content];
                        """) as? [String]
                if reached != nil { break }
            }

            // check 1: the age, and beside it its exact time
            let shown = try #require(reached, "Tab never reached a time on the list")
            #expect(shown[0].hasSuffix(" ago") && !shown[1].isEmpty)
            #expect(shown[2].contains(shown[1]), "the exact time is shown beside the focused age: \(shown)")

            // act 2: a tap on another age
            try await browser.click("tr:nth-of-type(2) time[title]")
            let tapped =
                try await browser.execute(
                    "const active = document.activeElement; return active && active.tagName === 'TIME' ? [active.title, getComputedStyle(active, '::after').content] : null;"
                ) as? [String]

            // check 2
            let afterTap = try #require(tapped, "a tap leaves the time focused")
            #expect(afterTap[1].contains(afterTap[0]), "\(afterTap)")
        }
    }
}
