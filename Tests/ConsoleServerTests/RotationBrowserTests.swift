import Foundation
import ModerationStore
import Sandbox
import Testing
import TestSupport

/// Issue 30, item 1, as a new moderator would do it: the rotation set up in Chromium by
/// pointing and clicking, and its form sent by the browser itself.
@Suite("In a real browser: the on-call rotation", .timeLimit(.minutes(3)))
struct RotationBrowserTests {
    @Test("a rotation of three is built, reordered and saved by clicking; a mistyped right-to-left name with markup is refused next to the list, which stays, and kept to correct")
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
}
