import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, item 6: the first five minutes. The dashboard after the very first sign-in fills in
/// without a reload, leads with one clear next step, and a quiet hand-off stays quiet.
@Suite("In a real browser: the first five minutes", .serialized, .timeLimit(.minutes(4)))
struct FirstMinutesBrowserTests {
    @Test(
        "signed in before the console has read anything, the dashboard says it is loading, then fills in by itself with its counts and a Start reviewing link to the library waiting longest, opened in its list"
    )
    func dashboardFillsIn() async throws {
        try await ConsoleFixture.withBrowser(mirror: .empty) { browser, console, sandbox, directory in
            // setup: the very first sign-in, the mirror still empty
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/")
            let loading = try await browser.source(containing: "data-fills-in")

            // act: the first reads land (as the mirror's would), the page is left alone
            let filler = try MirrorFiller(directory: directory, backendURL: sandbox.baseURL)
            await filler.fill()
            try await filler.shutdown()
            let filled = try await browser.source(containing: "next-step", timeout: .seconds(15))

            // check: no reload pressed, the counts are there, and one clear first step
            #expect(loading.contains("still loading"))
            #expect(!filled.contains("data-fills-in"))
            #expect(filled.contains("library submissions waiting"))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let oldest = try #require(try await store.oldestMirroredLibraries(status: .pending, count: 1).first)
            let start =
                try await browser.execute("const a = document.querySelector('.next-step a'); return a ? a.getAttribute('href') + '|' + a.textContent : '';")
                as? String
            #expect(start == "/libraries/\(oldest.slug)?status=pending|Start reviewing", "\(start ?? "")")
            let words = try await browser.execute("return document.querySelector('.next-step').innerText;") as? String ?? ""
            #expect(words.contains("The library waiting longest"), "\(words)")

            // act: follow it and approve with a: the next library of the list opens
            try await browser.click(".next-step a")
            _ = try await browser.currentURL { $0.contains("/libraries/" + oldest.slug) }
            try await browser.press("a")
            let next = try await browser.currentURL { !$0.contains("/libraries/" + oldest.slug) && $0.contains("/libraries/") }
            #expect(next.contains("status=pending"), "on to the next waiting library: \(next)")
        }
    }
}
