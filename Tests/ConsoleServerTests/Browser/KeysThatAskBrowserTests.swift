import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, items 2 and 7: a key never does what cannot be undone without asking, and what a
/// key does is said in words that match it.
@Suite("In a real browser: keys that ask first, and say what they did", .serialized, .timeLimit(.minutes(4)))
struct KeysThatAskBrowserTests {
    @Test(
        "on the photos queue, j then a asks before a photo replaces the library's for good: Escape, or Enter at once, sends nothing and leaves focus on the card; the confirmation's own button uses it"
    )
    func photoKeyAsks() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await browser.signInAsStaff(console: console)
            let staff = try #require(try await store.staffMembers().first { $0.username == "staff" }?.id)
            try await browser.go(console + "/photos")
            _ = try await browser.source(containing: "photo-grid")
            let first = try #require(try await browser.execute("return document.querySelector('[data-row]').dataset.item;") as? String)
            let name = try #require(try await browser.execute("return document.querySelector('[data-row] h2 a').textContent.trim();") as? String)

            // act 1: j, a, then Escape
            try await browser.press("j", "a")
            let asked =
                try await browser.execute(
                    "const d = document.querySelector('dialog.confirm-key[open]'); return d ? d.innerText : '';") as? String ?? ""
            let askedAloud = try await browser.spokenText()
            try await browser.press(WebDriver.Key.escape)
            try await Task.sleep(for: .milliseconds(500))

            // check 1: asked in words, and nothing was sent
            #expect(asked.contains("Use this photo for \(name)?"), "\(asked)")
            #expect(asked.contains("cannot put the old one back"), "\(asked)")
            #expect(askedAloud.contains("Confirm or press Escape"), "\(askedAloud)")
            #expect(try await browser.execute("return document.querySelector('dialog[open]') === null;") as? Bool == true)
            #expect(try await store.recentDecisions(actorId: staff, kind: .photo, since: .distantPast).isEmpty, "Escape sent nothing")
            let focused = try await browser.execute("return document.activeElement.dataset.item || '';") as? String
            #expect(focused == first, "focus is back on the card")

            // act 2: a, then Enter at once (Cancel has the focus: nothing), then Tab to the confirmation's own button and Enter
            try await browser.press("a")
            try await browser.press(WebDriver.Key.enter)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await store.recentDecisions(actorId: staff, kind: .photo, since: .distantPast).isEmpty, "a habitual Enter sends nothing")
            try await browser.press("a")
            try await browser.press(WebDriver.Key.tab, WebDriver.Key.enter)

            // check 2: the photo was used, as asked
            var decided: [ModerationAction] = []
            for _ in 0..<150 where decided.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                decided = try await store.recentDecisions(actorId: staff, kind: .photo, since: .distantPast)
            }
            #expect(decided.map(\.targetKey) == [String(first.dropFirst("photo:".count))])
            #expect(decided.first?.statusWanted == .approved)
        }
    }
}
