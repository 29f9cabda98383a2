import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

/// On a 390×844 phone no page scrolls sideways, the queue's own buttons are on screen, and
/// chart text keeps a readable size.
@Suite("On a phone, in a real browser", .serialized, .timeLimit(.minutes(6)))
struct PhoneLayoutBrowserTests {
    @Test(
        "at 390 px wide no page is wider than the screen, Approve and Reject sit on screen in the list, the bulk bar stays in view once a row is ticked, and chart labels stay 9 px or more"
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
                    return { inner: window.innerWidth, scroll: document.documentElement.scrollWidth, wide: wide.slice(0, 5), inline: Array.prototype.filter.call(document.scripts, function (s) { return !s.src; }).length };
                    """) as? [String: Any] ?? [:]
            let inner = measured["inner"] as? Int ?? 0
            let scroll = measured["scroll"] as? Int ?? Int.max
            if inner != 390 { problems.record("\(stop): the viewport is \(inner) px, not 390") }
            if scroll > inner { problems.record("\(stop): \(scroll) px wide on a \(inner) px screen; widest: \(measured["wide"] ?? [])") }
            if measured["inline"] as? Int != 0 { problems.record("\(stop): a script element that is not the console's own file") }
            if stop == "libraries" {
                let buttons =
                    try await browser.execute(
                        """
                        var row = document.querySelector("table.queue tbody tr:not(.decided)");
                        return Array.prototype.map.call(row.querySelectorAll("[data-key=approve], [data-key=reject]"), function (control) {
                          var box = control.getBoundingClientRect();
                          return box.width > 0 && box.left >= 0 && box.right <= window.innerWidth;
                        });
                        """) as? [Bool] ?? []
                if buttons != [true, true] { problems.record("libraries: the first row's Approve and Reject on screen: \(buttons)") }
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
            }
        }
        let found = problems.values
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
