import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, item 1: nothing ticked or typed on the library list is lost by a row's claim or
/// release, with script (sent in place) or without (the reloaded list brings it back), or by a reload.
@Suite("In a real browser: typed and ticked work survives", .serialized, .timeLimit(.minutes(4)))
struct TypedWorkBrowserTests {
    /// Ticks rows 1 and 2 and types a two-line bulk rejection reason, as a person would.
    private static func tickAndType(_ browser: WebDriver) async throws {
        try await browser.click("table.queue tbody tr:nth-child(1) input[name=item]")
        try await browser.click("table.queue tbody tr:nth-child(2) input[name=item]")
        try await browser.click(".bulk-bar select[name=decision] option[value=reject]")
        try await browser.type("Not a book exchange.\nA shop's shelf <b>for sale</b> 📚", into: ".bulk-bar textarea[name=reason]")
    }

    private static let readDraft = """
        return {
          ticked: Array.from(document.querySelectorAll('table.queue input[name=item]:checked')).map(b => b.closest('tr').dataset.item),
          reason: document.querySelector('.bulk-bar textarea[name=reason]').value,
          decision: document.querySelector('.bulk-bar select[name=decision]').value,
        };
        """

    private static func draft(_ browser: WebDriver) async throws -> (ticked: [String], reason: String, decision: String) {
        let read = try #require(try await browser.execute(readDraft) as? [String: Any])
        return (
            read["ticked"] as? [String] ?? [], (read["reason"] as? String ?? "").replacingOccurrences(of: "\r\n", with: "\n"), read["decision"] as? String ?? ""
        )
    }

    @Test(
        "with script, I'm reviewing this and Release on a fifth row keep two ticked rows and a typed reason, the row stays under the pointer with focus on its new button; a reload brings the ticks and the reason back"
    )
    func claimInPlace() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            try await Self.tickAndType(browser)
            let before = try await Self.draft(browser)
            let row = "table.queue tbody tr:nth-child(5)"
            // Centred first, as a person scrolls to it (WebDriver would scroll it to the bottom edge, under the sticky bulk bar).
            let top =
                try await browser.execute(
                    "const r = document.querySelector('\(row)'); r.scrollIntoView({block: 'center'}); return r.getBoundingClientRect().top;") as? Double

            // act: claim the fifth row with a real click
            try await browser.click("\(row) .claim-button")
            _ = try await browser.source(containing: "release-button")

            // check: the badge says it, nothing else moved or was lost
            let claimed =
                try await browser.execute(
                    "const r = document.querySelector('\(row)'); return [r.querySelector('.claim-mine') !== null, r.getBoundingClientRect().top, document.activeElement.className];"
                ) as? [Any]
            #expect(claimed?[0] as? Bool == true, "the row says You are reviewing")
            #expect(claimed?[1] as? Double == top, "the row stays where the pointer is")
            let focused = claimed?[2] as? String ?? ""
            #expect(focused.contains("release-button"), "focus is on the row's Release")
            let afterClaim = try await Self.draft(browser)
            #expect(afterClaim.ticked == before.ticked && afterClaim.ticked.count == 2)
            #expect(afterClaim.reason == "Not a book exchange.\nA shop's shelf <b>for sale</b> 📚")
            #expect(afterClaim.decision == "reject")

            // act: release it, then reload the page
            try await browser.click("\(row) .release-button")
            let released = try await browser.waitUntil("return document.querySelector('\(row) .claim-button') !== null;")
            #expect(released == true, "the row offers I'm reviewing this again")
            #expect(try await Self.draft(browser).ticked == before.ticked)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            _ = try await browser.source(containing: "data-keyboard-list")

            // check: the reload brought back what was ticked and typed
            let reloaded = try await Self.draft(browser)
            #expect(reloaded.ticked == before.ticked)
            #expect(reloaded.reason == "Not a book exchange.\nA shop's shelf <b>for sale</b> 📚")
            #expect(reloaded.decision == "reject")
        }
    }

    @Test("without script, I'm reviewing this on a fifth row reloads the list at that row with the two ticks and the typed two-line reason back")
    func claimWithoutScript() async throws {
        try await ConsoleFixture.withBrowser(javaScript: false) { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            try await Self.tickAndType(browser)
            let before = try await Self.draft(browser)
            let slug = try #require(try await browser.execute("return document.querySelector('table.queue tbody tr:nth-child(5)').dataset.item;") as? String)

            // act: the browser sends the whole list form to the claim (the row scrolled to the middle, clear of the sticky bar)
            _ = try await browser.execute("document.querySelector('table.queue tbody tr:nth-child(5)').scrollIntoView({block: 'center'});")
            try await browser.click("table.queue tbody tr:nth-child(5) .claim-button")
            let page = try await browser.source(containing: "You are reviewing")

            // check: the list came back at the claimed row, with the work in it
            #expect(page.contains("class=\"flash\""))
            let url = try await browser.currentURL()
            #expect(url.hasSuffix("#" + slug.replacingOccurrences(of: ":", with: "-")), "\(url)")
            let after = try await Self.draft(browser)
            #expect(after.ticked == before.ticked && after.ticked.count == 2)
            #expect(after.reason == "Not a book exchange.\nA shop's shelf <b>for sale</b> 📚")
            #expect(after.decision == "reject")
        }
    }

    @Test("on a library's page a typed two-line rejection reason survives I'm reviewing this and Release, which reload the page")
    func reasonSurvivesClaimOnItsPage() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let slug = try #require(try await store.oldestMirroredLibraries(status: .pending, count: 1).first?.slug)
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries/\(slug)")
            _ = try await browser.source(containing: "claim-button")
            try await browser.type("Looks like a shop.\nPlease send a photo of the shelf.", into: "textarea#reason")

            // act: claim, then release, each a real click that reloads the page
            try await browser.click(".claim-button")
            _ = try await browser.source(containing: "release-button")
            let afterClaim = try await browser.execute("return document.querySelector('textarea#reason').value;") as? String
            try await browser.click(".release-button")
            _ = try await browser.source(containing: "claim-button")
            let afterRelease = try await browser.execute("return document.querySelector('textarea#reason').value;") as? String

            // check
            #expect(afterClaim?.replacingOccurrences(of: "\r\n", with: "\n") == "Looks like a shop.\nPlease send a photo of the shelf.")
            #expect(afterRelease?.replacingOccurrences(of: "\r\n", with: "\n") == "Looks like a shop.\nPlease send a photo of the shelf.")
            #expect(try await browser.source().contains("What you had typed is back in the form below, not sent yet."))
        }
    }
}
