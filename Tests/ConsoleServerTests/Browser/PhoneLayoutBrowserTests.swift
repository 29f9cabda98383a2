import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// On a 390×844 phone no page scrolls sideways, the queue's own buttons are on screen, and
/// chart text keeps a readable size.
@Suite("On a phone, in a real browser", .serialized, .timeLimit(.minutes(6)))
struct PhoneLayoutBrowserTests {
    @Test(
        "at 390 px wide no page is wider than the screen nor has a box that scrolls sideways, no ordinary word breaks across lines, the header and on-call line take at most 15 % of it with the menu folded (counts kept), the audit filters fold behind one control, Approve and Reject… fill the row on screen as large targets, the bulk bar stays in view once a row is ticked, and chart labels stay 9 px or more"
    )
    func noSidewaysScroll() async throws {
        let problems = Recorder<String>()
        try await PageTour.walk(sizes: [.phone]) { stop, _, browser in
            // check: the viewport really is a phone's, and nothing reaches past it
            let measured =
                try await browser.execute(
                    """
                    var wide = [];
                    document.querySelectorAll("body *").forEach(function (element) {
                      var box = element.getBoundingClientRect();
                      if (box.width > 0 && box.right > window.innerWidth + 1 && getComputedStyle(element).position !== "absolute") {
                        wide.push(element.tagName.toLowerCase() + (element.className ? "." + String(element.className).split(" ").join(".") : "") + " right " + Math.round(box.right));
                      }
                    });
                    // A box that scrolls sideways inside the page (a table in an overflow box) hides columns as surely.
                    var sideways = [];
                    document.querySelectorAll("main *").forEach(function (element) {
                      var overflow = getComputedStyle(element).overflowX;
                      if ((overflow === "auto" || overflow === "scroll") && element.clientWidth > 0 && element.scrollWidth > element.clientWidth + 1) {
                        sideways.push(element.tagName.toLowerCase() + "." + String(element.className) + " " + element.scrollWidth + " in " + element.clientWidth);
                      }
                    });
                    // Ordinary words (Latin, Cyrillic or Greek letters only, up to 20) drawn across two lines:
                    // "(coverin g)". Korean and Chinese break between any two syllables by their own rules.
                    var broken = [];
                    var walker = document.createTreeWalker(document.querySelector("main") || document.body, NodeFilter.SHOW_TEXT);
                    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
                      if (!node.parentElement || !node.parentElement.getClientRects().length || node.parentElement.closest(".visually-hidden, [aria-hidden=true]") || node.data.length > 400) { continue; }
                      var at = 0;
                      node.data.split(/(\\s+)/).forEach(function (word) {
                        var letters = word.replace(/^[(“"']+|[)”"'.,:;!?]+$/g, "");
                        if (/^[\\p{Script=Latin}\\p{Script=Cyrillic}\\p{Script=Greek}]{2,20}$/u.test(letters)) {
                          var range = document.createRange();
                          range.setStart(node, at);
                          range.setEnd(node, at + word.length);
                          var lines = {};
                          Array.prototype.forEach.call(range.getClientRects(), function (rect) { if (rect.width > 0) { lines[Math.round(rect.top)] = true; } });
                          if (Object.keys(lines).length > 1) { broken.push(word); }
                        }
                        at += word.length;
                      });
                    }
                    var header = document.querySelector("header.site-top");
                    return { inner: window.innerWidth, innerHeight: window.innerHeight, header: header ? Math.round(header.getBoundingClientRect().height) : 0, scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 5), sideways: sideways.slice(0, 5), broken: broken.slice(0, 5), inline: Array.prototype.filter.call(document.scripts, function (s) { return !s.src; }).length };
                    """) as? [String: Any] ?? [:]
            let inner = measured["inner"] as? Int ?? 0
            let scroll = measured["scroll"] as? Int ?? Int.max
            if inner != 390 { problems.record("\(stop): the viewport is \(inner) px, not 390") }
            if scroll > inner { problems.record("\(stop): \(scroll) px wide on a \(inner) px screen; widest: \(measured["wide"] ?? [])") }
            if let sideways = measured["sideways"] as? [String], !sideways.isEmpty { problems.record("\(stop): boxes that scroll sideways: \(sideways)") }
            if let broken = measured["broken"] as? [String], !broken.isEmpty { problems.record("\(stop): words broken across lines: \(broken)") }
            if measured["sideways"] == nil || measured["broken"] == nil { problems.record("\(stop): the measurement did not run: \(measured)") }
            // The header and the on-call line together: at most 15 % of the screen, the menu folded.
            let header = measured["header"] as? Int ?? Int.max
            let screenHeight = measured["innerHeight"] as? Int ?? 0
            if Double(header) > Double(screenHeight) * 0.15 { problems.record("\(stop): the header takes \(header) px of \(screenHeight)") }
            if measured["inline"] as? Int != 0 { problems.record("\(stop): a script element that is not the console's own file") }
            if stop == "audit" {
                // The filters fold behind one control, and open with it.
                let folded =
                    try await browser.execute(
                        """
                        var form = document.querySelector("form.filters");
                        var button = document.querySelector(".filters-button");
                        var before = form.getClientRects().length;
                        button.click();
                        var after = form.getClientRects().length;
                        button.click();
                        return [before, after, Math.round(button.getBoundingClientRect().height)];
                        """) as? [Int] ?? []
                if folded.count != 3 || folded[0] != 0 || folded[1] == 0 || folded[2] < 44 {
                    problems.record("audit: the filters [shown folded, shown open, button height]: \(folded)")
                }
            }
            if stop == "libraries" {
                // The folded menu keeps the queue counts, and opens to the whole navigation.
                let menu =
                    try await browser.execute(
                        """
                        var button = document.querySelector(".site-menu-button");
                        var nav = document.querySelector("nav[aria-label=Main]");
                        var before = nav.getClientRects().length;
                        button.click();
                        var box = nav.getBoundingClientRect();
                        var after = [nav.getClientRects().length, box.right <= window.innerWidth];
                        button.click();
                        return [before, after[0], after[1] ? 1 : 0, button.querySelectorAll(".count").length];
                        """) as? [Int] ?? []
                if menu.count != 4 || menu[0] != 0 || menu[1] == 0 || menu[2] != 1 || menu[3] != 3 {
                    problems.record("libraries: the menu [hidden before, shown after, on screen, counts on it]: \(menu)")
                }
                let buttons =
                    try await browser.execute(
                        """
                        var row = document.querySelector("table.queue tbody tr:not(.decided)");
                        var cell = row.querySelector("td.row-decide").getBoundingClientRect();
                        return Array.prototype.map.call(row.querySelectorAll("[data-key=approve], [data-key=reject]"), function (control) {
                          var box = control.getBoundingClientRect();
                          var onScreen = box.width > 0 && box.left >= 0 && box.right <= window.innerWidth;
                          return [onScreen ? 1 : 0, Math.round(box.width), Math.round(box.height), Math.round(cell.width)];
                        });
                        """) as? [[Int]] ?? []
                if buttons.map({ $0.first }) != [1, 1] { problems.record("libraries: the first row's Approve and Reject on screen: \(buttons)") }
                // Large targets sharing the row's width: [on screen, width, height, the cell's width] each.
                let widths = buttons.map { $0.count == 4 ? $0[1] : 0 }.reduce(0, +)
                let cellWidth = buttons.first.map { $0.count == 4 ? $0[3] : 0 } ?? 0
                if buttons.contains(where: { $0.count != 4 || $0[2] < 44 }) || Double(widths) < Double(cellWidth) * 0.9 {
                    problems.record("libraries: Approve and Reject… should fill the row, 44 px tall or more: \(buttons)")
                }
                // With a row ticked, the bulk bar (and its count) stays in view at the top of a long list.
                let bar =
                    try await browser.execute(
                        """
                        var box = document.querySelector("form.bulk input[type=checkbox][name=item]");
                        if (!box) { return "no tick box"; }
                        box.click();
                        window.scrollTo(0, 0);
                        var rect = document.querySelector("form.bulk .bulk-bar").getBoundingClientRect();
                        var inView = rect.top < window.innerHeight && rect.bottom > 0 && rect.height <= window.innerHeight * 0.45;
                        box.click();
                        return inView ? "in view" : "at " + Math.round(rect.top) + " of " + window.innerHeight + ", " + Math.round(rect.height) + " px tall";
                        """) as? String
                if bar != "in view" { problems.record("libraries: with a row ticked the bulk bar is \(bar ?? "missing")") }
            }
            if stop == "libraries searched for the hostile name" {
                let shown = try await browser.execute(#"return document.querySelector("main").innerText.indexOf("<script>alert(1)</script>") >= 0;"#) as? Bool
                if shown != true { problems.record("the hostile library name is not shown as text") }
            }
            if stop == "statistics" {
                // Rendered size of each visible chart label: its font size times the drawing's scale.
                let smallest =
                    try await browser.execute(
                        """
                        var sizes = [];
                        document.querySelectorAll("svg.chart").forEach(function (svg) {
                          if (!svg.getClientRects().length) { return; }
                          var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                          svg.querySelectorAll("text").forEach(function (text) { sizes.push(parseFloat(text.getAttribute("font-size")) * scale); });
                        });
                        return sizes.length ? Math.min.apply(null, sizes) : 0;
                        """) as? Double ?? 0
                if smallest < 9 { problems.record("statistics: the smallest chart label is \(smallest) px") }
                // Every chart's numbers, opened: nine columns of a day's decisions must fit too.
                let wideTables =
                    try await browser.execute(
                        """
                        document.querySelectorAll("figure.chart-card details").forEach(function (details) { details.open = true; });
                        return Array.prototype.filter.call(document.querySelectorAll("table.chart-table"), function (table) {
                          return table.getBoundingClientRect().right > window.innerWidth + 1;
                        }).map(function (table) { return table.closest("figure").id + " " + Math.round(table.getBoundingClientRect().right); });
                        """) as? [String] ?? ["the measurement did not run"]
                if !wideTables.isEmpty { problems.record("statistics: chart tables wider than the screen: \(wideTables)") }
            }
        }
        let found = problems.values
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
