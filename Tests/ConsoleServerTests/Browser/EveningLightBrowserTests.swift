import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, item 11: a device set to dark gets dark pages, a placeholder reads as a hint, and
/// at 1280×800 the header is one line and the on-call line short, so more rows fit.
@Suite("In the evening light, in a real browser", .serialized, .timeLimit(.minutes(5)))
struct EveningLightBrowserTests {
    /// The relative luminance (0 black … 1 white) of a computed CSS colour, measured in the page.
    private static let luminance = """
        function luminance(css) {
          var parts = css.match(/[\\d.]+/g).map(Number);
          var channel = function (c) { c = c / 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
          return 0.2126 * channel(parts[0]) + 0.7152 * channel(parts[1]) + 0.0722 * channel(parts[2]);
        }
        """

    @Test(
        "a device set to dark gets a dark page with light text, on the list and the dashboard; set to light, a light one; the page says it has both"
    )
    func followsTheDevicesTheme() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            for scheme in ["dark", "light"] {
                // act
                try await browser.emulateColorScheme(scheme)
                for path in ["/libraries", "/"] {
                    try await browser.go(console + path)
                    _ = try await browser.source(containing: "site-footer")
                    let seen =
                        try await browser.execute(
                            Self.luminance + """
                                var body = getComputedStyle(document.body), card = document.querySelector("table.queue, .queue-card, .stat-cards li");
                                return { paper: luminance(body.backgroundColor), ink: luminance(body.color),
                                         card: card ? luminance(getComputedStyle(card).backgroundColor) : -1,
                                         meta: (document.querySelector("meta[name=color-scheme]") || {}).content || "" };
                                """) as? [String: Any] ?? [:]

                    // check
                    let paper = seen["paper"] as? Double ?? -1, ink = seen["ink"] as? Double ?? -1, card = seen["card"] as? Double ?? -1
                    if scheme == "dark" {
                        #expect(paper >= 0 && paper < 0.05, "\(path) in the dark: the page's background \(seen)")
                        #expect(card >= 0 && card < 0.05, "\(path) in the dark: a card's background \(seen)")
                        #expect(ink > 0.6, "\(path) in the dark: the text \(seen)")
                    } else {
                        #expect(paper > 0.9 && ink < 0.05, "\(path) in the light: \(seen)")
                    }
                    #expect(seen["meta"] as? String == "light dark", "\(path): \(seen)")
                }
            }
        }
    }

    @Test(
        "at 1280×800 the header is one line, the on-call line is short, and seven or more rows of the libraries list are whole on the first screen, above the bulk bar; the country filter's placeholder reads as a hint, in muted ink"
    )
    func moreRowsOnALaptop() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.emulateViewport(width: 1280, height: 800)
            try await browser.signInAsStaff(console: console)

            // act
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            _ = try await browser.source(containing: "data-keyboard-list")
            let seen =
                try await browser.execute(
                    Self.luminance + """
                        var tops = Array.from(document.querySelectorAll(".site-header .brand, .site-header nav a, .site-header .user")).map(e => Math.round(e.getBoundingClientRect().top));
                        var oncall = document.querySelector(".oncall-line");
                        // Whole rows above the sticky bulk bar, which covers the screen's bottom edge.
                        var bar = document.querySelector("form.bulk .bulk-bar");
                        var limit = Math.min(window.innerHeight, bar ? bar.getBoundingClientRect().top : window.innerHeight);
                        var rows = Array.from(document.querySelectorAll("table.queue tbody tr")).filter(r => r.getBoundingClientRect().bottom <= limit).length;
                        var country = document.querySelector("input[name=country]");
                        var muted = document.createElement("span");
                        muted.style.color = "var(--muted)";
                        document.body.appendChild(muted);
                        return { lines: new Set(tops).size, spread: Math.max.apply(null, tops) - Math.min.apply(null, tops),
                                 header: Math.round(document.querySelector(".site-header").getBoundingClientRect().height),
                                 oncall: oncall ? Math.round(oncall.getBoundingClientRect().height) : 0, rows: rows, limit: Math.round(limit),
                                 heights: Array.from(document.querySelectorAll("table.queue tbody tr")).slice(0, 8).map(r => Math.round(r.getBoundingClientRect().height)),
                                 first: Math.round(document.querySelector("table.queue tbody tr").getBoundingClientRect().top),
                                 placeholder: country.placeholder, hint: getComputedStyle(country, "::placeholder").color, muted: getComputedStyle(muted).color };
                        """) as? [String: Any] ?? [:]

            // check
            #expect((seen["spread"] as? Int ?? .max) <= 8, "the header's brand, links and account on one line: \(seen)")
            #expect((seen["header"] as? Int ?? .max) <= 52, "the header is one line tall: \(seen)")
            #expect((seen["oncall"] as? Int ?? .max) <= 30, "the on-call line is short: \(seen)")
            #expect((seen["rows"] as? Int ?? 0) >= 7, "whole rows on the first screen above the bulk bar: \(seen)")
            let placeholder = seen["placeholder"] as? String ?? ""
            #expect(placeholder.hasPrefix("e.g."), "the country's placeholder reads as an example, not a value: \(placeholder)")
            #expect(seen["hint"] as? String == seen["muted"] as? String, "the placeholder is drawn in the muted ink: \(seen)")
        }
    }
}
