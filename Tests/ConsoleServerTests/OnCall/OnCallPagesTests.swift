import Foundation
import GRDB
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The On call page and the header through the console's real routes: the rotation set up by
/// its form, who is told they are on call, overrides, and the calendar feed behind its secret.
@Suite("On call pages", .timeLimit(.minutes(3)))
struct OnCallPagesTests {
    /// The local date in Rome `days` from now, as the rotation form takes it.
    static func romeDate(daysFromNow days: Int) throws -> String {
        let zone: TimeZone? = TimeZone(identifier: "Europe/Rome")
        return LocalDate(Date(), in: try #require(zone)).adding(days: days).description
    }

    /// Signs in staff and maria, and sets a rotation of week-long shifts, staff's since yesterday.
    static func setUp(_ browser: Browser) async throws -> Browser {
        let maria = Browser(client: browser.client)
        _ = try await maria.signIn("maria")
        _ = try await browser.signIn()
        let page = try await browser.get("/on-call")
        let saved = try await browser.post(
            "/on-call/rotation",
            form: [
                // A textarea's line break as a browser sends it (CR LF; issue 30).
                ("csrf", page.csrfToken ?? ""), ("members", "staff\r\nmaria"), ("shiftDays", "7"), ("handoff", "09:00"),
                ("timeZone", "Europe/Rome"), ("startDate", try romeDate(daysFromNow: -1)),
            ])
        #expect(saved.status == .seeOther || saved.status == .found, "\(saved.html.suffix(600))")
        return maria
    }

    @Test("the rotation form sets the schedule (audited); the person on call reads a banner, everyone else who it is")
    func headerAndCalendar() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            let maria = try await Self.setUp(browser)
            // act
            let mine = try await browser.get("/on-call")
            let theirs = try await maria.get("/libraries")
            // check: the banner for staff only, the line for maria
            #expect(mine.contains(#"<div class="oncall-line oncall-you" role="status"><strong>You are on call until "#))
            #expect(theirs.contains(#"<div class="oncall-line"><a href="/on-call">On call: staff until "#))
            #expect(theirs.contains("next: you, from") && !theirs.contains("oncall-you"))
            // check: four weeks of seven days, today marked once, staff's days marked as theirs
            let calendar = try #require(mine.html.range(of: #"<table class="oncall-calendar">"#).map { mine.html[$0.lowerBound...] })
            let table = String(calendar[..<(calendar.range(of: "</table>")?.upperBound ?? calendar.endIndex)])
            #expect(table.components(separatedBy: "<td class=").count - 1 == 28)
            #expect(table.components(separatedBy: #"aria-current="date""#).count - 1 == 1)
            #expect(table.contains("<strong>staff</strong>") && table.contains("maria"))
            #expect(mine.contains("staff → maria"))
            // check: the area's other pages in brief: targets, alerts, hand-offs
            #expect(mine.contains("<li>Library submissions: 48 h <span class=\"muted\">(default)</span></li>"))
            #expect(mine.contains("No queue is past its target now.") && mine.contains("None yet."))
            // check: the change is in the audit log, by staff
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let entry = try #require(try await store.auditEntries(limit: 10).first { $0.action == "rotation.update" })
            #expect(entry.actorUsername == "staff" && entry.statusAfter.hasPrefix("staff, maria; 7 d shifts at 09:00 Europe/Rome"))
        }
    }

    @Test("a rotation naming someone unknown is refused with words and the input kept; nothing changes")
    func badRotation() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            _ = try await browser.signIn()
            let page = try await browser.get("/on-call")
            #expect(page.contains("No on-call rotation yet"))
            // act
            let refused = try await browser.post(
                "/on-call/rotation",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("members", "staff\n<script>alert(1)</script>"), ("shiftDays", "7"), ("handoff", "09:00"),
                    ("timeZone", "Europe/Rome"), ("startDate", "2026-11-23"),
                ])
            // check
            #expect(refused.status == .badRequest)
            #expect(refused.contains("The console does not know a staff member called \u{2068}&lt;script&gt;alert(1)&lt;/script&gt;\u{2069}"))
            #expect(refused.contains(#"<input type="hidden" name="member" value="&lt;script&gt;alert(1)&lt;/script&gt;">"#), "the list kept as sent")
            #expect(!refused.contains("<script>alert(1)"))
            #expect(try await ModerationStore(path: directory.path("console.sqlite")).rotation() == nil)
        }
    }

    @Test(
        "the rotation's list is built with its buttons: add from the known staff, a typed unknown name refused on its own and kept, up, down, remove; only Save stores it"
    )
    func rotationPicker() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup: maria and jonas have signed in once, so the console knows them
            for name in ["maria", "jonas"] { _ = try await Browser(client: browser.client).signIn(name) }
            _ = try await browser.signIn()
            let page = try await browser.get("/on-call")
            let csrf = try #require(page.csrfToken)
            #expect(page.contains(#"<option value="maria">maria</option>"#) && page.contains(#"<option value="jonas">jonas</option>"#))
            let settings = [("shiftDays", "7"), ("handoff", "09:00"), ("timeZone", "Europe/Rome"), ("startDate", "2026-11-23")]
            func send(_ members: [String], _ fields: [(String, String)]) async throws -> Page {
                try await browser.post("/on-call/rotation", form: [("csrf", csrf)] + members.map { ("member", $0) } + settings + fields)
            }
            func listed(_ page: Page) -> [String] {
                page.html.components(separatedBy: #"<input type="hidden" name="member" value=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
            }
            let store = try ModerationStore(path: directory.path("console.sqlite"))

            // act and check: each button redraws the list, nothing stored until Save
            let added = try await send(["staff"], [("add", "maria"), ("edit", "add")])
            #expect(added.status == .ok && listed(added) == ["staff", "maria"])
            #expect(added.contains("Not saved yet"))
            let typed = try await send(["staff", "maria"], [("add_username", "JONAS"), ("edit", "enter")])
            #expect(listed(typed) == ["staff", "maria", "jonas"], "Enter adds what was typed, in the console's spelling")
            let unknown = try await send(["staff", "maria", "jonas"], [("add_username", "‏zoë <b>"), ("edit", "add")])
            #expect(unknown.status == .badRequest)
            #expect(
                unknown.contains(
                    "The console does not know a staff member called \u{2068}‏zoë &lt;b&gt;\u{2069}: they must sign in once first. Nothing was changed."))
            #expect(unknown.contains(#"name="add_username" value="‏zoë &lt;b&gt;""#), "the typed name is kept to correct")
            #expect(listed(unknown) == ["staff", "maria", "jonas"])
            let twice = try await send(["staff", "maria"], [("add", "maria"), ("edit", "add")])
            #expect(twice.contains("\u{2068}maria\u{2069} is in the rotation already."))
            let up = try await send(["staff", "maria", "jonas"], [("edit", "up:2")])
            #expect(listed(up) == ["staff", "jonas", "maria"])
            let down = try await send(["staff", "jonas", "maria"], [("edit", "down:0")])
            #expect(listed(down) == ["jonas", "staff", "maria"])
            let removed = try await send(["jonas", "staff", "maria"], [("edit", "remove:1")])
            #expect(listed(removed) == ["jonas", "maria"])
            #expect(try await store.rotation() == nil, "nothing stored before Save")
            // A button for another list, or none the page offers, is refused: never a save.
            for stale in ["remove:99", "up:0", "down:1", "up:-1", "up:+1", "up:abc", "up:", "frobnicate", ""] {
                let refused = try await send(["jonas", "maria"], [("edit", stale)])
                #expect(refused.status == .badRequest, "\(stale)")
                #expect(refused.contains("That button does not match the list as it stands"), "\(stale)")
            }
            let typedNotAdded = try await send(["jonas", "maria"], [("add_username", "staff"), ("edit", "save")])
            #expect(typedNotAdded.contains("is typed in the add field but not added"))
            #expect(try await store.rotation() == nil, "nothing stored by a refused button")
            let saved = try await send(["jonas", "maria"], [("edit", "save")])
            #expect(saved.status == .seeOther)
            #expect(try await store.rotation()?.members.map(\.username) == ["jonas", "maria"])
        }
    }

    @Test("an override puts someone else on call (audited), a bad one keeps its input, and removing it gives the turn back")
    func overrides() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            let maria = try await Self.setUp(browser)
            let page = try await maria.get("/on-call")
            let today = try Self.romeDate(daysFromNow: 0)
            let tomorrow = try Self.romeDate(daysFromNow: 2)
            // act 1: the end before the start
            let refused = try await maria.post(
                "/on-call/overrides",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("staff", "maria"), ("startsAt", "\(tomorrow)T09:00"), ("endsAt", "\(today)T00:00"), ("note", "swap"),
                ])
            #expect(refused.status == .badRequest)
            #expect(refused.contains("An override must end after it starts. Nothing was added."))
            #expect(refused.contains(#"value="\#(tomorrow)T09:00""#) && refused.contains(#"value="swap""#))
            // act 1b: a start the clock skips (Rome goes forward at 02:00 on 2027-03-28)
            let skipped = try await maria.post(
                "/on-call/overrides",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("staff", "maria"), ("startsAt", "2027-03-28T02:30"), ("endsAt", "2027-03-28T03:30"), ("note", ""),
                ])
            #expect(skipped.status == .badRequest)
            #expect(
                skipped.contains(
                    "2027-03-28 02:30 does not happen in Europe/Rome: the clocks go forward that night. Give a time after the change. Nothing was added."),
                "\(skipped)")
            #expect(OverrideForm.skipped("2027-10-31T02:30", in: try #require(TimeZone(identifier: "Europe/Rome"))) == nil, "a repeated hour happens")
            // act 2: maria covers from midnight today to two days ahead
            // (the page's own form, with its key, sent twice: a double click)
            let overrideForm =
                page.hiddenFields(ofFormPostingTo: "/on-call/overrides")
                + [("staff", "maria"), ("startsAt", "\(today)T00:00"), ("endsAt", "\(tomorrow)T09:00"), ("note", "staff is away")]
            #expect(overrideForm.contains { $0.0 == "key" }, "the override form carries its key")
            let added = try await maria.post("/on-call/overrides", form: overrideForm)
            #expect(added.status == .seeOther || added.status == .found)
            let sentTwice = try await maria.post("/on-call/overrides", form: overrideForm)
            #expect(sentTwice.status == .seeOther)
            let told = try await maria.get("/on-call")
            #expect(told.contains("This override was already added (the form was sent twice); it is listed once."), "\(told)")
            #expect(try await ModerationStore(path: directory.path("console.sqlite")).overrides(endingAfter: .distantPast).count == 1, "one override")
            // check: maria is on call now, and told so; the override is listed and audited
            let now = try await maria.get("/on-call")
            #expect(now.contains("You are on call until"))
            #expect(now.contains("staff is away") && now.contains("(covering)"))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let entry = try #require(try await store.auditEntries(limit: 10).first { $0.action == "override.add" })
            #expect(entry.actorUsername == "maria" && entry.targetName.hasPrefix("maria covers "))
            // act 3: staff removes it
            let cover = try #require(try await store.overrides(endingAfter: Date()).first)
            let staffPage = try await browser.get("/on-call")
            let removed = try await browser.post("/on-call/overrides/\(cover.id)/remove", form: [("csrf", staffPage.csrfToken ?? "")])
            #expect(removed.status == .seeOther || removed.status == .found)
            #expect(try await browser.get("/on-call").contains("You are on call until"))
            #expect(try await store.auditEntries(limit: 10).contains { $0.action == "override.remove" && $0.actorUsername == "staff" })
            // a second removal says what happened instead of failing
            let again = try await browser.post("/on-call/overrides/\(cover.id)/remove", form: [("csrf", staffPage.csrfToken ?? "")])
            #expect(again.status == .seeOther || again.status == .found)
            #expect(try await browser.get("/on-call").contains("That override no longer exists"))
        }
    }

    @Test("the calendar feed opens without a cookie by its secret only; a new secret stops the old one")
    func calendarFeed() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup
            _ = try await Self.setUp(browser)
            let page = try await browser.get("/on-call")
            // act: make the address
            let made = try await browser.post("/on-call/calendar-feed", form: [("csrf", page.csrfToken ?? "")])
            #expect(made.status == .ok && made.headers[.cacheControl] == "no-store")
            let url = try #require(made.html.firstMatch(of: #/<code class="feed-url">http://[^/]+(/calendar/[A-Za-z0-9_-]+\.ics)</code>/#)).1
            // check: a calendar app (no cookie) reads it, and a parser finds staff's week-long shift
            let calendarApp = Browser(client: browser.client)
            let feed = try await calendarApp.get(String(url))
            #expect(feed.status == .ok && feed.headers[.contentType] == "text/calendar; charset=utf-8")
            let events = try OnCallCalendarFeedTests.parse(feed.html)
            #expect(!events.isEmpty && events.allSatisfy { $0[2] == "09:00" && $0[4] == "09:00" })
            #expect(events.contains { $0[1] == (try? Self.romeDate(daysFromNow: -1)) })
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            await #expect(try store.auditEntries(limit: 10).contains { $0.action == "calendar.regenerate" })
            // act: a new address
            let remade = try await browser.post("/on-call/calendar-feed", form: [("csrf", page.csrfToken ?? "")])
            let newURL = try #require(remade.html.firstMatch(of: #/<code class="feed-url">http://[^/]+(/calendar/[A-Za-z0-9_-]+\.ics)</code>/#)).1
            // check: the old one is gone, the new one works, a made-up one is a bare 404
            #expect(try await calendarApp.get(String(url)).status == .notFound)
            #expect(try await calendarApp.get(String(newURL)).status == .ok)
            let guessed = try await calendarApp.get("/calendar/not-a-secret.ics")
            #expect(guessed.status == .notFound && !guessed.contains("staff"))
            #expect(!(try await browser.get("/on-call")).contains("feed-url"), "the secret is shown once")
        }
    }

    @Test(
        "a calendar feed made before there is any rotation answers an empty calendar (200, text/calendar, a VCALENDAR a parser accepts, no events), then fills in once a rotation is set; a made-up address is still a bare 404"
    )
    func feedBeforeAnyRotation() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, _ in
            // setup: no rotation yet; staff makes the address and subscribes a calendar app to it
            _ = try await browser.signIn()
            let url = try await Self.makeFeed(browser)
            let calendarApp = Browser(client: browser.client)

            // act
            let early = try await calendarApp.get(url)
            let guessed = try await calendarApp.get("/calendar/not-a-secret.ics")

            // check: a good, empty subscription rather than a broken one; a guess learns nothing
            #expect(early.status == .ok && early.headers[.contentType] == "text/calendar; charset=utf-8", "\(early.status) \(early.html)")
            #expect(early.html.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") && early.html.hasSuffix("END:VCALENDAR\r\n"), "\(early.html)")
            #expect(early.html.contains("X-WR-CALNAME:Book Corners on call: staff") && !early.html.contains("BEGIN:VEVENT"))
            #expect(try OnCallCalendarFeedTests.parse(early.html).isEmpty, "a parser reads it, with no events")
            #expect(guessed.status == .notFound && guessed.html == "Not found.\n")

            // act: a rotation is set; the same address, asked again
            _ = try await Self.setUp(browser)
            let later = try await calendarApp.get(url)
            let turns = try OnCallCalendarFeedTests.parse(later.html)

            // check: the subscription made early now carries staff's turns
            #expect(later.status == .ok && !turns.isEmpty, "\(later.html)")
        }
    }

    @Test(
        "a calendar feed whose owner has no session and has not signed in for 14 days stops, audited, and the on-call page tells colleagues; signing in again clears the line"
    )
    func idleFeedStops() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup: staff makes a feed, then signs out and stays away 15 days
            let maria = try await Self.setUp(browser)
            let url = try await Self.makeFeed(browser)
            let calendarApp = Browser(client: browser.client)
            #expect(try await calendarApp.get(url).status == .ok)
            let signOutPage = try await browser.get("/on-call")
            _ = try await browser.post("/sign-out", form: [("csrf", signOutPage.csrfToken ?? "")])
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let staffID = try #require(try await store.staffMember(username: "staff")?.id)
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in
                let away = Date().addingTimeInterval(-15 * 86_400)
                try db.execute(sql: "UPDATE staffMember SET lastSignedInAt = ? WHERE id = ?", arguments: [away, staffID])
                try db.execute(sql: "UPDATE calendarFeedToken SET createdAt = ? WHERE staffId = ?", arguments: [away, staffID])
            }

            // act: the calendar app asks again
            let asked = try await calendarApp.get(url)

            // check: the feed has stopped, it is audited, and maria is told on the on-call page
            #expect(asked.status == .notFound)
            await #expect(try store.auditEntries(limit: 10).contains { $0.action == "calendar.revoke" && $0.outcomeDetail == "not signed in for 14 days" })
            let onCall = try await maria.get("/on-call")
            #expect(onCall.contains("staff&#39;s calendar feed has stopped: not signed in since "), "\(onCall.html.prefix(200))")
            // staff signs in again: the news is old
            _ = try await browser.signIn()
            #expect(!(try await maria.get("/on-call")).contains("calendar feed has stopped"))
        }
    }

    /// Makes the viewer's feed address through the page's form; answers its path.
    private static func makeFeed(_ browser: Browser) async throws -> String {
        let page = try await browser.get("/on-call")
        let made = try await browser.post("/on-call/calendar-feed", form: [("csrf", page.csrfToken ?? "")])
        return String(try #require(made.html.firstMatch(of: #/<code class="feed-url">http://[^/]+(/calendar/[A-Za-z0-9_-]+\.ics)</code>/#)).1)
    }

    @Test("each person can revoke their own feed from the On call page (a POST with CSRF, audited); the address then answers a bare 404")
    func revokeOwnFeed() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, directory in
            // setup: staff and maria each have a feed
            let maria = try await Self.setUp(browser)
            let staffFeed = try await Self.makeFeed(browser)
            let mariaFeed = try await Self.makeFeed(maria)
            let calendarApp = Browser(client: browser.client)
            #expect(try await calendarApp.get(staffFeed).status == .ok)
            let page = try await browser.get("/on-call")
            let revokeForm = page.hiddenFields(ofFormPostingTo: "/on-call/calendar-feed/revoke")
            #expect(revokeForm.contains { $0.0 == "csrf" }, "the page offers Revoke as a form")

            // act: without the CSRF token, then with it
            let forged = try await browser.post("/on-call/calendar-feed/revoke", form: [])
            let stillThere = try await calendarApp.get(staffFeed).status
            let revoked = try await browser.post("/on-call/calendar-feed/revoke", form: revokeForm)

            // check
            #expect(forged.status == .forbidden)
            #expect(stillThere == .ok)
            #expect(revoked.status == .seeOther || revoked.status == .found, "\(revoked)")
            let after = try await browser.get("/on-call")
            #expect(after.contains("Your calendar feed address no longer works"), "\(after.html.prefix(3_000))")
            #expect(after.contains("Create my feed address") && !after.contains("You have a feed"))
            let gone = try await calendarApp.get(staffFeed)
            #expect(gone.status == .notFound && !gone.contains("VCALENDAR"))
            #expect(try await calendarApp.get(mariaFeed).status == .ok, "maria's own feed is untouched")
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let entries = try await store.auditEntries(limit: 20).filter { $0.action == "calendar.revoke" }
            #expect(entries.count == 1 && entries.first?.actorUsername == "staff", "\(entries)")
            // renewing gives a working address again
            #expect(try await calendarApp.get(try await Self.makeFeed(browser)).status == .ok)
        }
    }

    @Test("a feed ends with its owner's sessions when Book Corners says they are no longer staff, audited")
    func feedEndsWhenNoLongerStaff() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty, configure: { $0.staffRecheckInterval = 1 }) { browser, _, directory in
            // setup
            let maria = try await Self.setUp(browser)
            let staffFeed = try await Self.makeFeed(browser)
            let mariaFeed = try await Self.makeFeed(maria)
            let calendarApp = Browser(client: browser.client)
            #expect(try await calendarApp.get(staffFeed).status == .ok)

            // act: Book Corners demotes staff; their next page meets the re-check
            try await SandboxDatabase.demote(SeedAccounts.demoStaffUsername, in: directory.path("sandbox.sqlite"))
            try await Task.sleep(for: .milliseconds(1_200))
            let next = try await browser.get("/on-call")

            // check
            #expect(next.location == "/sign-in?ended=notStaff", "\(next)")
            let gone = try await calendarApp.get(staffFeed)
            #expect(gone.status == .notFound && !gone.contains("VCALENDAR") && !gone.contains("maria"))
            #expect(try await calendarApp.get(mariaFeed).status == .ok)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let revocation = try await store.auditEntries(limit: 20).first { $0.action == "calendar.revoke" }
            #expect(revocation?.actorUsername == "staff" && revocation?.outcomeDetail == "notStaff", "\(String(describing: revocation))")
        }
    }
}

/// Changes to the sandbox's own accounts, as Book Corners' administrators make them.
enum SandboxDatabase {
    static func demote(_ username: String, in path: String) async throws {
        let queue = try DatabaseQueue.waiting(path: path)
        try await queue.write { db in try db.execute(sql: "UPDATE user SET isStaff = 0 WHERE username = ?", arguments: [username]) }
        try queue.close()
    }
}
