import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, item 10: on a 390×844 phone the first waiting item is on the first screen, the
/// filters fold behind a summary of what is set, a finger's targets are large enough, no
/// keyboard shortcuts are offered to a touch screen, and a library's evidence comes before its
/// decision.
@Suite("On a phone's first screen, in a real browser", .serialized, .timeLimit(.minutes(5)))
struct PhoneFirstScreenBrowserTests {
    /// Waits until `script` answers true, for up to four seconds.
    private static func waitFor(_ browser: WebDriver, _ script: String) async throws -> Bool {
        for _ in 0..<40 {
            if try await browser.execute(script) as? Bool == true { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Opens `path` and waits for its list.
    private static func open(_ browser: WebDriver, _ console: String, _ path: String) async throws {
        try await browser.go(console + path)
        _ = try await browser.source(containing: "data-keyboard-list")
    }

    @Test(
        "at 390×844 the first item of the libraries, reports and photos queues and its first decision are on the first screen; the filters are folded behind a summary naming what is set, and a tap unfolds them; at 1280 they are open"
    )
    func firstItemOnTheFirstScreen() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.emulateViewport(width: 390, height: 844)
            try await browser.signInAsStaff(console: console)

            for path in ["/libraries", "/reports", "/photos"] {
                // act
                try await Self.open(browser, console, path)

                // check: the first row's name and its first decision are on screen, the form folded
                let seen =
                    try await browser.execute(
                        """
                        var row = document.querySelector("[data-row]");
                        var name = row.querySelector("a").getBoundingClientRect();
                        var decide = row.querySelector("[data-key=approve]").getBoundingClientRect();
                        var form = document.querySelector("form.filters");
                        return { name: Math.round(name.bottom), decide: Math.round(decide.bottom), screen: window.innerHeight,
                                 formShown: form.checkVisibility(), summary: (document.querySelector(".filters-summary") || {}).textContent || "" };
                        """) as? [String: Any] ?? [:]
                let screen = try #require(seen["screen"] as? Int)
                #expect(screen == 844)
                #expect((seen["name"] as? Int ?? .max) <= screen, "\(path): the first item's name is below the first screen: \(seen)")
                #expect((seen["decide"] as? Int ?? .max) <= screen, "\(path): the first item's decision is below the first screen: \(seen)")
                #expect(seen["formShown"] as? Bool == false, "\(path): the filters are not folded: \(seen)")
                let summary = seen["summary"] as? String ?? ""
                #expect(summary.hasPrefix("Filters"), "\(path): \(summary)")
                #expect(summary.contains(path == "/reports" ? "Open" : "Pending"), "\(path): the summary names the status shown: \(summary)")
            }

            // act: a narrowed list, and a tap on its summary
            try await Self.open(browser, console, "/libraries?q=book&country=de")
            let summary = try await browser.execute("return document.querySelector('.filters-summary').textContent;") as? String ?? ""
            let box = try #require(
                try await browser.execute(
                    "var b = document.querySelector('.filters-summary').getBoundingClientRect(); return [Math.round(b.left + b.width / 2), Math.round(b.top + b.height / 2), Math.round(b.height)];"
                ) as? [Int])
            try await browser.tap(x: box[0], y: box[1])

            // check: the summary says what narrows the list; the tap opened the form
            #expect(summary.contains("“book”") && summary.contains("DE"), "\(summary)")
            #expect(box[2] >= 44, "the summary is a 44 px target: \(box)")
            #expect(try await Self.waitFor(browser, "return document.querySelector('form.filters').checkVisibility();"), "a tap unfolds the filters")

            // check: on a laptop the filters are open without a tap, their summary not shown
            try await browser.emulateViewport(width: 1280, height: 800)
            try await Self.open(browser, console, "/libraries")
            let wide = try await browser.execute(
                "return [document.querySelector('form.filters').checkVisibility(), document.querySelector('.filters-summary').checkVisibility()];")
            #expect(wide as? [Bool] == [true, false], "at 1280 [filters shown, summary shown]: \(String(describing: wide))")
        }
    }

    @Test(
        "at 390×844 a row's tick box answers a tap anywhere on its 44 px target, a report's and a photo's decisions are 44 px tall, and a touch screen shows no Keyboard shortcuts button"
    )
    func targetsForAFinger() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.emulateViewport(width: 390, height: 844)
            try await browser.emulateTouch()
            try await browser.signInAsStaff(console: console)
            try await Self.open(browser, console, "/libraries")
            let target = try #require(
                try await browser.execute(
                    """
                    var box = document.querySelector("table.queue input[name=item]");
                    var target = box.closest("label") || box;
                    var rect = target.getBoundingClientRect();
                    return [Math.round(rect.left), Math.round(rect.top), Math.round(rect.width), Math.round(rect.height)];
                    """) as? [Int])

            // act: a tap 4 px inside the target's top-left corner, not on the box drawn in its middle
            try await browser.tap(x: target[0] + 4, y: target[1] + 4)

            // check
            #expect(target[2] >= 44 && target[3] >= 44, "the tick box's target [left, top, width, height]: \(target)")
            #expect(
                try await Self.waitFor(browser, "return document.querySelector('table.queue input[name=item]').checked;"),
                "a tap on the target's edge ticks the row")
            let shortcuts = try await browser.execute(
                "var b = document.querySelector('.shortcuts-button'); return b ? b.checkVisibility() : false;")
            #expect(shortcuts as? Bool == false, "no Keyboard shortcuts button on a touch screen")

            for path in ["/reports", "/photos"] {
                try await Self.open(browser, console, path)
                let heights =
                    try await browser.execute(
                        "return Array.from(document.querySelector('[data-row]').querySelectorAll('.row-actions button')).map(b => Math.round(b.getBoundingClientRect().height));"
                    ) as? [Int] ?? []
                #expect(!heights.isEmpty && heights.allSatisfy { $0 >= 44 }, "\(path): the first item's decisions are \(heights) px tall")
            }
        }
    }

    @Test(
        "on the page of a library with a possible duplicate, at 390×844 the duplicates and the neighbourhood map come before Approve, and the duplicate's name is a 24 px target; at 1280×800 Approve is on the first screen beside them"
    )
    func evidenceBeforeTheDecision() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup: a waiting library the list marks as a possible or likely duplicate
            try await browser.emulateViewport(width: 390, height: 844)
            try await browser.signInAsStaff(console: console)
            try await Self.open(browser, console, "/libraries?status=pending&page_size=50")
            let page = try #require(
                try await browser.execute(
                    "var row = Array.from(document.querySelectorAll('[data-row]')).find(r => /duplicate/.test(Array.from(r.querySelectorAll('.concern')).map(c => c.textContent).join(' '))); return row ? row.dataset.open : null;"
                ) as? String, "a waiting library marked as a duplicate")

            // act
            try await browser.go(console + page)
            _ = try await browser.source(containing: "compare-heading")

            // check: top to bottom, the evidence first
            let tops =
                try await browser.execute(
                    """
                    function top(css) { var e = document.querySelector(css); return e ? Math.round(e.getBoundingClientRect().top + window.scrollY) : -1; }
                    var link = document.querySelector(".candidate:not(.candidate-self) .candidate-name a").getBoundingClientRect();
                    return { compare: top("#compare"), map: top(".neighbourhood-map"), approve: top("section.decide [data-key=approve]"), link: [Math.round(link.width), Math.round(link.height)] };
                    """) as? [String: Any] ?? [:]
            let approve = try #require(tops["approve"] as? Int)
            let map = try #require(tops["map"] as? Int)
            let compare = try #require(tops["compare"] as? Int)
            #expect(map >= 0 && map < approve, "the map is above Approve: \(tops)")
            #expect(compare >= 0 && compare < approve, "the duplicates are above Approve: \(tops)")
            let link = tops["link"] as? [Int] ?? []
            #expect(link.count == 2 && link[1] >= 24, "the duplicate's name link [width, height]: \(link)")

            // check: on a laptop the decision sits beside the evidence, on the first screen
            try await browser.emulateViewport(width: 1280, height: 800)
            try await browser.go(console + page)
            _ = try await browser.source(containing: "compare-heading")
            let wide =
                try await browser.execute(
                    "var b = document.querySelector('section.decide [data-key=approve]').getBoundingClientRect(); return Math.round(b.bottom);") as? Int
            #expect((wide ?? .max) <= 800, "at 1280×800 Approve ends at \(wide ?? -1) px")
        }
    }
}
