import Foundation
import GRDB
import TestSupport
import Testing

@testable import ConsoleServer

/// A submitted name or place may be one word thousands of characters long: it wraps where
/// it does not fit, the page never grows sideways, and ordinary words are never broken.
@Suite("Long words in a real browser", .serialized, .timeLimit(.minutes(4)))
struct LongWordBrowserTests {
    @Test("a 10 kB name and place without spaces keep the desktop list and the library's page within the window; no ordinary word breaks")
    func longWordsWrap() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup: the oldest pending library in the mirror (the pages' only source) gets the long texts
            let name = String(repeating: "Bücherschrank", count: 770)
            let place = String(repeating: "W", count: 10_000)
            let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            let slug = try await database.write { db in
                let slug = try #require(try String.fetchOne(db, sql: "SELECT slug FROM mirrorLibrary WHERE status = 'pending' ORDER BY createdAt LIMIT 1"))
                try db.execute(sql: "UPDATE mirrorLibrary SET name = ?, city = ?, record = NULL WHERE slug = ?", arguments: [name, place, slug])
                return slug
            }
            try database.close()
            try await browser.emulateViewport(width: 1280, height: 900)
            try await browser.signInAsStaff(console: console)
            for path in ["/libraries", "/libraries/\(slug)"] {
                // act
                try await browser.go(console + path)
                _ = try await browser.source(containing: "Bücherschrank")
                let measured =
                    try await browser.execute(
                        """
                        var broken = [];
                        document.querySelectorAll("main a[dir=auto], main .cell-text, main h1").forEach(function (element) {
                          var text = element.firstChild;
                          if (!text || text.nodeType !== Node.TEXT_NODE || text.data.length > 200) { return; }
                          var at = 0;
                          text.data.split(/(\\s+)/).forEach(function (word) {
                            if (word.trim().length > 0) {
                              var range = document.createRange();
                              range.setStart(text, at);
                              range.setEnd(text, at + word.length);
                              var lines = {};
                              Array.prototype.forEach.call(range.getClientRects(), function (rect) { if (rect.width > 0) { lines[Math.round(rect.top)] = true; } });
                              if (Object.keys(lines).length > 1) { broken.push(word); }
                            }
                            at += word.length;
                          });
                        });
                        var wide = [];
                        document.querySelectorAll("body *").forEach(function (element) {
                          var box = element.getBoundingClientRect();
                          if (box.width > 0 && box.right > window.innerWidth + 1) { wide.push(element.tagName.toLowerCase() + "." + String(element.className) + " right " + Math.round(box.right)); }
                        });
                        return { inner: window.innerWidth, scroll: document.documentElement.scrollWidth, broken: broken.slice(0, 5), wide: wide.slice(-4) };
                        """) as? [String: Any] ?? [:]
                // check
                let inner = measured["inner"] as? Int ?? 0
                let scroll = measured["scroll"] as? Int ?? Int.max
                #expect(inner == 1280)
                #expect(scroll <= inner, "\(path): \(scroll) px wide in a \(inner) px window; widest: \(measured["wide"] ?? [])")
                #expect((measured["broken"] as? [String] ?? ["?"]).isEmpty, "\(path): ordinary words broken across lines: \(measured["broken"] ?? "")")
            }
        }
    }
}
