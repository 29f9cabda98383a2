import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Two Chromium windows, staff and maria, on the same list: what one does shows in the other
/// without a reload.
@Suite("Live queue: in a real browser", .serialized, .timeLimit(.minutes(3)))
struct LiveBrowserTests {
    @Test(
        "maria's claim, then her decision, show on staff's open list within 2 s without a reload; the row's one-click buttons stop applying; a library's own page says so at the top"
    )
    func colleagueSeesClaimAndDecision() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run(databasePath: directory.path("sandbox.sqlite")) { sandbox in
            let configuration = ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory)
            let app = try await buildConsoleApplication(configuration: configuration, logger: ConsoleFixture.quietLogger)
            try await app.test(.live) { client in
                try await ConsoleFixture.fillMirror(client: client, directory: directory, backendURL: sandbox.baseURL)
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let staff = try WebDriver()
                let maria = try WebDriver()
                do {
                    try await staff.start()
                    try await maria.start()
                    for (browser, login) in [(staff, "staff"), (maria, "maria")] {
                        try await browser.go(console + "/sign-in")
                        try await browser.type(login, into: "#login")
                        try await browser.type(SeedAccounts.demoStaffPassword, into: "#password")
                        try await browser.click("button[type=submit]")
                        _ = try await browser.currentURL { $0 == console + "/" }
                        try await browser.go(console + "/libraries")
                    }
                    // setup: the row both see; a mark that a reload would wipe
                    let source = try await staff.source(containing: "data-item=\"library:")
                    let slug = try #require(source.firstMatch(of: #/data-item="library:([^"]+)"/#).map { String($0.1) })
                    _ = try await staff.execute("window.notReloaded = true; return true;")
                    let countScript = "return document.querySelector('nav [data-live-count=library]').textContent;"
                    let countBefore = try #require(Int(try await staff.execute(countScript) as? String ?? ""), "the navigation's count")
                    let row = "tr[data-item=\"library:\(slug)\"]"
                    // act 1: maria claims it from her list
                    try await maria.click("\(row) button[formaction$=\"/claim\"]")
                    // check 1
                    let claimedAfter = try await waitFor(staff, within: .seconds(2)) {
                        try await staff.execute("var n = document.querySelector('\(row) [data-live-note]'); return n ? n.textContent : '';") as? String
                            == "maria is reviewing · 15 min left"
                    }
                    #expect(claimedAfter != nil, "the claim showed on staff's list")
                    #expect(
                        try await staff.execute(
                            "return document.querySelector('\(row) [data-key=approve]').disabled === true || document.querySelector('\(row) [data-key=approve]').getAttribute('aria-disabled') === 'true';"
                        ) as? Bool == true)
                    // act 2: maria approves it from its page
                    try await maria.go(console + "/libraries/\(slug)")
                    try await maria.click("section.decide .approve-form button[data-key=approve]")
                    // check 2
                    let decidedAfter = try await waitFor(staff, within: .seconds(2)) {
                        let text =
                            try await staff.execute("var n = document.querySelector('\(row) [data-live-note]'); return n ? n.textContent : '';") as? String
                            ?? ""
                        return text.hasPrefix("Approval queued by maria") || text.hasPrefix("Approved by maria")
                    }
                    let shown = decidedAfter == nil ? String(try await staff.source().suffix(3000)) : ""
                    #expect(decidedAfter != nil, "the decision showed on staff's list: \(shown)")
                    #expect(try await staff.execute("return window.notReloaded === true;") as? Bool == true, "no reload")
                    // check 2b: once Book Corners has it, the navigation counts one fewer waiting
                    let countAfter = try await waitFor(staff, within: .seconds(15)) {
                        try await staff.execute(countScript) as? String == String(countBefore - 1)
                    }
                    #expect(countAfter != nil, "the navigation's count followed the decision")
                    // act 3: staff opens another library's page; maria claims it from her list
                    let other = try #require(source.matches(of: #/data-item="library:([^"]+)"/#).map { String($0.1) }.first { $0 != slug })
                    try await staff.go(console + "/libraries/\(other)")
                    _ = try await staff.source(containing: "data-live-banner")
                    try await maria.go(console + "/libraries")
                    try await maria.click("tr[data-item=\"library:\(other)\"] button[formaction$=\"/claim\"]")
                    // check 3: said at the top of staff's page
                    let bannerAfter = try await waitFor(staff, within: .seconds(2)) {
                        try await staff.execute("var b = document.querySelector('[data-live-banner]'); return b && !b.hidden ? b.textContent : '';") as? String
                            == "maria is reviewing · 15 min left."
                    }
                    #expect(bannerAfter != nil, "the library's own page says maria took it")
                } catch {
                    await staff.quit()
                    await maria.quit()
                    throw error
                }
                await staff.quit()
                await maria.quit()
            }
        }
    }

    @Test("keys on the report list: j, then a resolves that report in place; the row says so, the next row has the focus, the page is not reloaded")
    func reportsByKeyboardInPlace() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.go(console + "/sign-in")
            try await browser.type("staff", into: "#login")
            try await browser.type(SeedAccounts.demoStaffPassword, into: "#password")
            try await browser.click("button[type=submit]")
            _ = try await browser.currentURL { $0 == console + "/" }
            try await browser.go(console + "/reports")
            let source = try await browser.source(containing: "data-item=\"report:")
            let ids = source.matches(of: #/data-item="report:(\d+)"/#).map { String($0.1) }
            let (first, second) = (try #require(ids.first), try #require(ids.dropFirst().first))
            _ = try await browser.execute("window.notReloaded = true; return true;")
            // act
            try await browser.press("j")
            try await browser.press("a")
            // check
            let row = "li[data-item=\"report:\(first)\"]"
            let shown = try await waitFor(browser, within: .seconds(5)) {
                let text =
                    try await browser.execute("var n = document.querySelector('\(row) [data-live-note]'); return n && !n.hidden ? n.textContent : '';")
                    as? String ?? ""
                return text.contains("Resolved") || text.contains("resolved") || text.contains("Resolution")
            }
            let page = shown == nil ? String(try await browser.source().suffix(2000)) : ""
            #expect(shown != nil, "the row says what became of it: \(page)")
            // The stream may tell the row before the send's own answer comes back and moves the focus.
            let focused = try await waitFor(browser, within: .seconds(5)) {
                try await browser.execute("return document.activeElement && document.activeElement.dataset.item;") as? String == "report:\(second)"
            }
            #expect(focused != nil, "the next row has the focus")
            #expect(try await browser.execute("return window.notReloaded === true;") as? Bool == true, "no reload")
        }
    }

    @Test("a colleague's claim that runs out with nobody doing anything goes from the open list, and the row's Approve applies again")
    func claimRunsOut() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: staff on the pending list
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries")
            let source = try await browser.source(containing: "name=\"quick\"")
            let slug = try #require(source.firstMatch(of: #/formaction="/libraries/([^"/]+)/decide" name="quick"/#).map { String($0.1) })
            let row = "tr[data-item=\"library:\(slug)\"]"
            // act: maria's claim of 6 s, written as her console would write it
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await store.claim(.init(kind: .library, key: slug), holderId: 999_002, holderUsername: "maria", now: Date(), duration: 6)
            // check: shown, the one-click Approve off; then gone once it ran out, Approve on again
            let noteScript = "var n = document.querySelector('\(row) [data-live-note]'); return n && !n.hidden ? n.textContent : '';"
            let shown = try await waitFor(browser, within: .seconds(3)) {
                (try await browser.execute(noteScript) as? String ?? "").hasPrefix("maria is reviewing")
            }
            #expect(shown != nil, "the claim showed")
            #expect(try await browser.execute("return document.querySelector('\(row) button[name=quick]').disabled;") as? Bool == true)
            let gone = try await waitFor(browser, within: .seconds(12)) {
                let note = try await browser.execute(noteScript) as? String
                let disabled = try await browser.execute("return document.querySelector('\(row) button[name=quick]').disabled;") as? Bool
                return note == "" && disabled == false
            }
            #expect(gone != nil, "the claim went when it ran out, and Approve applies again")
        }
    }

    @Test("a click on row 13's Approve leaves the list where it was: the row stays put on screen, says what became of it, the next row has the focus")
    func clickInPlaceKeepsThePlace() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup: a long list scrolled to its 13th one-click row
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            _ = try await browser.source(containing: "name=\"quick\"")
            let ids =
                try await browser.execute(
                    "return Array.from(document.querySelectorAll('tr[data-item]')).filter(function (r) { return r.querySelector('button[name=quick]'); }).map(function (r) { return r.id; });"
                ) as? [String] ?? []
            try #require(ids.count > 14, "\(ids.count) rows with a one-click Approve")
            let (row, next) = (ids[12], ids[13])
            _ = try await browser.execute(
                "document.getElementById(arguments[0]).scrollIntoView({block: 'center'}); window.notReloaded = true; return true;", arguments: [row])
            // Where the row is on screen (a message added above it moves the page's scroll offset, not the row).
            let topScript = "return document.getElementById(arguments[0]).getBoundingClientRect().top;"
            // Measured once the page's fonts are in and its layout holds still: a fallback font for
            // the CJK and emoji names arriving late made every row 10 px taller, after the click or not.
            _ = try await browser.executeAsync("var done = arguments[arguments.length - 1]; document.fonts.ready.then(function () { done(true); });")
            var before = try await browser.execute(topScript, arguments: [row]) as? Double ?? -1
            for _ in 0..<20 {
                try await Task.sleep(for: .milliseconds(250))
                let now = try await browser.execute(topScript, arguments: [row]) as? Double ?? -1
                if now == before { break }
                before = now
            }
            // act
            try await browser.click("#\(row) button[name=quick]")
            // check
            let decided = try await waitFor(browser, within: .seconds(5)) {
                let note =
                    try await browser.execute("var n = document.querySelector('#\(row) [data-live-note]'); return n && !n.hidden ? n.textContent : '';")
                    as? String
                return !(note ?? "").isEmpty
            }
            #expect(decided != nil, "the row says what became of it")
            let focused = try await waitFor(browser, within: .seconds(5)) {
                try await browser.execute("return document.activeElement && document.activeElement.id;") as? String == next
            }
            #expect(focused != nil, "the next one-click row has the focus")
            let after = try await browser.execute(topScript, arguments: [row]) as? Double ?? -1
            #expect(before > 0 && abs(after - before) < 2, "the row stayed where it was on screen: \(before) → \(after)")
            #expect(try await browser.execute("return window.notReloaded === true;") as? Bool == true, "no reload")
        }
    }

    /// Checks `condition` every 50 ms until it holds or `limit` passes; answers how long it took.
    private func waitFor(_ browser: WebDriver, within limit: Duration, _ condition: () async throws -> Bool) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if try await condition() { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
