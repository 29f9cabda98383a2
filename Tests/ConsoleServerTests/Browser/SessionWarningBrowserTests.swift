import Foundation
import GRDB
import HummingbirdTesting
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 21: a few minutes before an idle session ends, the page says so (script); the footer
/// says when it ends, on the team's clock, with or without script.
@Suite("In a real browser: the session's end is announced", .serialized, .timeLimit(.minutes(5)))
struct SessionWarningBrowserTests {
    @Test("with 4 minutes of idle time left, a warning with a Stay signed in button shows; the footer's end time is on the team's clock, UTC on hover")
    func warningBeforeTheIdleTimeout() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let app = try await buildConsoleApplication(
                configuration: ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory, idleTimeout: 4 * 60),
                logger: ConsoleFixture.quietLogger)
            try await app.test(.live) { client in
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let browser = try WebDriver()
                do {
                    // setup
                    try await browser.start()
                    try await browser.signInAsStaff(console: console)
                    // act
                    try await browser.go(console + "/audit")
                    let page = try await browser.source(containing: "session-warning")
                    // check
                    #expect(page.contains("Your session ends in 4 minutes unless you open a page or stay signed in."), "\(page.suffix(2000))")
                    #expect(page.contains(">Stay signed in</button>"))
                    // It stays in view however far down the page the moderator is (typing a reason, say).
                    let inView =
                        try await browser.execute(
                            """
                            document.body.style.minHeight = "4000px";
                            window.scrollTo(0, 3000);
                            var box = document.querySelector(".session-warning").getBoundingClientRect();
                            return box.top >= 0 && box.bottom <= window.innerHeight;
                            """) as? Bool
                    #expect(inView == true, "the warning is in view when scrolled down")
                    let footer = try #require(page.range(of: #"<span class="session-end""#).map { String(page[$0.lowerBound...].prefix(400)) })
                    // On the team's clock (this server's zone before any rotation), the UTC instant on hover.
                    #expect(footer.contains("Signed in until <time") && footer.contains(#" UTC""#), "\(footer)")
                    try await browser.click(".session-warning button")
                    // check: a live session stays, and the warning goes
                    var stayed: Any?
                    // Up to 15 s: the Stay signed in request is answered slowly on a loaded machine.
                    for _ in 0..<150 {
                        stayed = try await browser.execute("return document.querySelector('.session-warning') === null;")
                        if stayed as? Bool == true { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(stayed as? Bool == true, "the warning goes once the session is kept")
                    // It stays gone: the page's next tick (at most 1 s later) does not bring it straight back.
                    try await Task.sleep(for: .seconds(2))
                    let stillGone = try await browser.execute("return document.querySelector('.session-warning') === null;")
                    #expect(stillGone as? Bool == true, "the warning does not come back right after Stay signed in")

                    // act: the session ends behind the page's back (another console signed it out), then Stay signed in
                    try await browser.go(console + "/audit")
                    _ = try await browser.source(containing: "session-warning")
                    try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in try db.execute(sql: "DELETE FROM session") }
                    try await Task.sleep(for: .milliseconds(2_200))
                    try await browser.click(".session-warning button")
                    // check: it says so instead of pretending
                    var said = ""
                    // Until the button's request is answered either way (the warning changes or goes), up to
                    // 60 s: under the whole suite's load clean-clone runs saw 5 s, then 15 s, not suffice.
                    let asked = ContinuousClock.now
                    while ContinuousClock.now - asked < .seconds(60) {
                        said =
                            try await browser.execute("var w = document.querySelector('.session-warning'); return w ? w.textContent : 'gone';") as? String ?? ""
                        if said.contains("already ended") || said == "gone" { break }
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    #expect(said.contains("Your session has already ended"), "\(said)")
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }

    @Test(
        "a reason typed while the session was signed out elsewhere comes back after signing in again, on the same library's page, with a note; nothing was sent; signing out forgets it"
    )
    func typedReasonSurvivesASignOutElsewhere() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let slug = try await #require(
                try ModerationStore(path: directory.path("console.sqlite")).oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
            let typed = "Checked twice: the address is a school yard, not a book box. ✓ مكتبة"
            // setup: a long reason typed on the library's page
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries/\(slug)")
            try await browser.type(typed, into: "#reason")
            // act: signed out elsewhere (every session row gone), then Reject
            try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).write { db in try db.execute(sql: "DELETE FROM session") }
            // Another process's sign-out reaches this one's session copy within 2 s.
            try await Task.sleep(for: .milliseconds(2_200))
            try await browser.click("form[action$='/decide'] button.danger")
            _ = try await browser.currentURL { $0.contains("/sign-in") && $0.contains("next=%2Flibraries%2F") }
            let signIn = try await browser.source(containing: "id=\"password\"")
            let at = try await browser.currentURL()
            #expect(signIn.contains("not saved") || signIn.contains("was not sent"), "it says the decision was not sent: \(at) \(signIn.prefix(3000))")
            try await browser.submitStaffSignIn()
            // check: back on the same page, the reason back in its box, said so; nothing decided
            _ = try await browser.currentURL { $0.hasSuffix("/libraries/\(slug)") }
            _ = try await browser.source(containing: "restored-note")
            let value = try await browser.execute("return document.querySelector('#reason').value;") as? String
            #expect(value == typed)
            let picked = try await browser.execute("return document.querySelector('#reason_preset').value;") as? String
            #expect(picked == "own", "typing a reason is choosing one's own")
            let note = try await browser.execute("return document.querySelector('.restored-note').textContent;") as? String
            #expect(note?.contains("Nothing was sent") == true)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            await #expect(try store.operationsSnapshot().actions.values.reduce(0, +) == 0, "no decision recorded")
            // A reload that did not come from the sign-in page puts nothing back into a box emptied on purpose.
            _ = try await browser.execute("document.querySelector('#reason').value = '';")
            try await browser.go(console + "/libraries/\(slug)")
            let after = try await browser.execute("return document.querySelector('#reason').value;") as? String
            #expect(after == "")
            // Signing out forgets what was typed in this tab: the next person at this screen never gets it.
            try await browser.type("A reason nobody else should see", into: "#reason")
            let keptBefore =
                try await browser.execute("return Object.keys(sessionStorage).filter(function (k) { return k.indexOf('typed:') === 0; }).length;") as? Int
            #expect(keptBefore == 1)
            try await browser.click("form[action='/sign-out'] button")
            _ = try await browser.currentURL { $0.contains("/sign-in") }
            let keptAfter =
                try await browser.execute("return Object.keys(sessionStorage).filter(function (k) { return k.indexOf('typed:') === 0; }).length;") as? Int
            #expect(keptAfter == 0)
        }
    }

    @Test(
        "a staff note typed before the session cookie was deleted: sign-in says it was not saved and where it was going, returns to the report, and the note is back in its box; saved once sent"
    )
    func staffNoteSurvivesALostCookie() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let id = try #require(try await ModerationStore(path: directory.path("console.sqlite")).mirroredReports(status: nil, limit: 1, offset: 0).first?.id)
            let typed = "Called the steward twice.\nThe box is back ‏עברית 📚 <script>alert(1)</script> \"quoted\""
            // setup: a note typed (line break included) on the report's page
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/reports/\(id)")
            try await browser.type(typed, into: "#note")
            // act: the cookie is gone (cleared, or signed out in a way this tab never saw), then Save note
            try await browser.deleteAllCookies()
            try await browser.click("form.note-form button[type=submit]")
            _ = try await browser.currentURL { $0.contains("/sign-in") && $0.contains("next=%2Freports%2F\(id)") }
            let signIn = try await browser.source(containing: "id=\"password\"")
            #expect(signIn.contains("the form you sent was not saved"), "\(signIn.prefix(3000))")
            #expect(signIn.contains("go back to \u{2068}/reports/\(id)\u{2069}"))
            try await browser.submitStaffSignIn()
            // check: back on the report, the note in its box and said so; nothing stored meanwhile
            _ = try await browser.currentURL { $0.hasSuffix("/reports/\(id)") }
            _ = try await browser.source(containing: "restored-note")
            let value = try await browser.execute("return document.querySelector('#note').value;") as? String
            #expect(value == typed)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            #expect(try await store.reportNotes(reportId: id).isEmpty, "nothing was saved while signed out")
            // Sent again, it is saved once, with its line break (a browser sends it as CR LF).
            try await browser.click("form.note-form button[type=submit]")
            _ = try await browser.source(containing: "note-text")
            let notes = try await store.reportNotes(reportId: id)
            #expect(notes.count == 1)
            #expect(notes.first?.text.replacingOccurrences(of: "\r\n", with: "\n") == typed, "\(String(describing: notes.first?.text))")
        }
    }

    @Test(
        "a rejection refused for an old tab's security token says nothing was done, and the reason typed comes back when its page is opened again, with a note; nothing was recorded"
    )
    func typedReasonSurvivesARefusedToken() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            let slug = try await #require(
                try ModerationStore(path: directory.path("console.sqlite")).oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
            let typed = "Not a book box: a private shelf.\nSee the photo ✓ مكتبة"
            // setup: a reason typed on the library's page, whose form carries a token this session never had
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries/\(slug)?status=pending&page=1")
            try await browser.type(typed, into: "#reason")
            _ = try await browser.execute("document.querySelector('form.reject-form input[name=csrf]').value = 'from-an-old-tab';")
            // act
            try await browser.click("form[action$='/decide'] button.danger")
            let refused = try await browser.source(containing: "data-form-refused")
            #expect(refused.contains("This form has expired") && refused.contains("so nothing was done"))
            // Opened again from the menu, without the list's address: the same page.
            try await browser.go(console + "/libraries/\(slug)")
            // check: the reason is back in its box, said so; nothing decided
            _ = try await browser.source(containing: "restored-note")
            let value = try await browser.execute("return document.querySelector('#reason').value;") as? String
            #expect(value?.replacingOccurrences(of: "\r\n", with: "\n") == typed)
            let note = try await browser.execute("return document.querySelector('.restored-note').textContent;") as? String
            #expect(note?.contains("the console refused the form, so nothing was sent") == true, "\(note ?? "")")
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            await #expect(try store.operationsSnapshot().actions.values.reduce(0, +) == 0, "no decision recorded")
            // Offered back once: opened again, the box stays as it is now.
            _ = try await browser.execute("document.querySelector('#reason').value = '';")
            try await browser.go(console + "/libraries/\(slug)")
            #expect(try await browser.execute("return document.querySelector('#reason').value;") as? String == "")
            // Someone else's text in this tab (signed in here after them, their session lapsed) is never offered.
            try await browser.type("maria's reason, not staff's", into: "#reason")
            _ = try await browser.execute(
                "Object.keys(sessionStorage).forEach(function (k) { var e = JSON.parse(sessionStorage.getItem(k)); e.who = 'maria'; e.sent = false; e.refused = true; sessionStorage.setItem(k, JSON.stringify(e)); });"
            )
            try await browser.go(console + "/libraries/\(slug)")
            #expect(try await browser.execute("return document.querySelector('#reason').value;") as? String == "", "not another person's")
        }
    }
}
