import Foundation
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, items 4 and 5: focus lands on what the person came to do and is never hidden
/// under the sticky bulk bar; Undo is offered where the person acted, on a phone too.
@Suite("In a real browser: focus where the hands are, Undo where you acted", .serialized, .timeLimit(.minutes(5)))
struct FocusAndUndoBrowserTests {
    private static let activeElement =
        "const a = document.activeElement; return (a.id || '') + '|' + a.tagName + '|' + (a.textContent || '').trim().slice(0, 40);"

    @Test("r on the list opens the library with focus in the reason's picker; the bulk review page opens with focus on its confirm button")
    func focusOnArrival() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending")
            _ = try await browser.source(containing: "data-keyboard-list")

            // act 1: j, r
            try await browser.press("j", "r")
            _ = try await browser.currentURL { $0.contains("#decide") }
            try await Task.sleep(for: .milliseconds(300))
            let afterReject = try await browser.execute(Self.activeElement) as? String ?? ""

            // act 2: back to the list, two rows ticked with x, shift+a
            try await browser.go(console + "/libraries?status=pending")
            _ = try await browser.source(containing: "data-keyboard-list")
            try await browser.press("j", "x", "j", "x")
            try await browser.press("A")
            _ = try await browser.source(containing: "Approve 2 libraries")
            let onReview = try await browser.execute(Self.activeElement) as? String ?? ""

            // check
            #expect(afterReject.hasPrefix("reason_preset|SELECT"), "\(afterReject)")
            #expect(onReview.contains("|BUTTON|Approve 2 libraries"), "\(onReview)")
        }
    }

    @Test("approving five rows with a leaves each next focused row in view above the sticky bulk bar, at 1280×800 with rows ticked")
    func focusNeverUnderTheBar() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup: a short window, two rows ticked so the bulk bar is shown, the focus on row 1
            try await browser.setWindowSize(width: 1280, height: 800)
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            _ = try await browser.source(containing: "data-keyboard-list")
            try await browser.press("j", "x", "j", "x")
            var hidden: [String] = []

            // act: j on to each row with a one-click Approve, then a; five times
            var approved = 0
            for _ in 0..<25 where approved < 5 {
                try await browser.press("j")
                let plain =
                    try await browser.execute(
                        "const r = document.querySelector('tr.keyboard-focus'); return r && r.querySelector('button[data-key=approve]:not([disabled])') !== null;"
                    )
                    as? Bool ?? false
                guard plain else { continue }
                try await browser.press("a")
                approved += 1
                try await Task.sleep(for: .milliseconds(700))
                // check: the row focus moved to is wholly above the bar and inside the window
                let covered =
                    try await browser.execute(
                        """
                        const r = document.activeElement.closest('[data-row]'), bar = document.querySelector('form.bulk .bulk-bar');
                        if (!r) { return 'focus left the rows: ' + document.activeElement.tagName; }
                        const rb = r.getBoundingClientRect(), bb = bar.getBoundingClientRect();
                        return (rb.bottom > bb.top || rb.top < 0) ? r.dataset.item + ' at ' + Math.round(rb.top) + '-' + Math.round(rb.bottom) + ', bar from ' + Math.round(bb.top) : '';
                        """) as? String ?? "?"
                if !covered.isEmpty { hidden.append(covered) }
            }

            #expect(approved == 5)
            #expect(hidden.isEmpty, "\(hidden)")
        }
    }

    @Test(
        "a photo rejected with its reason from the queue is sent in place and j goes on from the next card, not from the first"
    )
    func photoRejectionKeepsThePlace() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/photos")
            _ = try await browser.source(containing: "photo-grid")
            let items = try #require(
                try await browser.execute("return Array.from(document.querySelectorAll('[data-row]')).map(r => r.dataset.item);") as? [String])
            try #require(items.count >= 3)

            // act: j, r opens the first card's reason; a preset is chosen and Reject photo clicked; then j
            try await browser.press("j", "r")
            try await browser.press(WebDriver.Key.arrowDown)
            let first = items[0].replacingOccurrences(of: "photo:", with: "")
            try await browser.click("#photo-\(first) ~ * button.danger, li[data-item='\(items[0])'] .reject-form button.danger")
            try await Task.sleep(for: .milliseconds(1200))
            try await browser.press("j")
            let focused = try await browser.execute("return document.activeElement.dataset.item || document.activeElement.tagName;") as? String

            // check: still the same page (no reload to its top), and the focus is past the rejected card
            #expect(try await browser.currentURL() == console + "/photos")
            #expect(focused == items[2], "after the rejection focus went to the second card, j to the third: \(focused ?? "")")
        }
    }

    @Test("a library rejected on its page: the next library's message offers Undo, which puts the rejected one back to waiting")
    func undoOnTheLibraryPage() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let oldest = try await store.oldestMirroredLibraries(status: .pending, count: 2).map(\.slug)
            try #require(oldest.count == 2)
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries")
            _ = try await browser.source(containing: "data-keyboard-list")

            // act: open the oldest, reject it with a preset reason, confirm
            try await browser.press("j", "o")
            _ = try await browser.currentURL { $0.contains("/libraries/" + oldest[0]) }
            try await browser.click("#reason_preset option:nth-child(2)")
            try await browser.click(".reject-form button.danger")
            _ = try await browser.source(containing: "Confirm rejection")
            try await browser.click("main form button.danger")
            _ = try await browser.currentURL { $0.contains("/libraries/" + oldest[1]) }
            let next = try await browser.source(containing: "class=\"flash\"")
            // act: Undo
            try await browser.click(".flash form.flash-undo button")
            let undone = try await browser.source(containing: "class=\"flash\"")

            // check: offered on the page the person is on, and it undid the rejection
            #expect(next.contains("Undo: back to waiting"), "\(next.components(separatedBy: "class=\"flash\"").last?.prefix(600) ?? "")")
            let latest = try await store.latestDecision(by: "staff", kind: .library, key: oldest[0]) { $0.statusWanted == .pending && $0.state.isFinal }
            #expect(latest?.statusWanted == .pending, "the latest decision on it is the Undo: \(undone.suffix(400))")
            #expect(latest?.state == .applied)
            // The list shows it waiting again, with its Approve, not as a row decided by the Undo.
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            #expect(
                try await browser.waitUntil("return document.querySelector(\"[data-item='library:\(oldest[0])'] [data-key=approve]\") !== null;", seconds: 5))
        }
    }

    @Test("on a phone (390×844) a report resolved from the list shows its Undo in the report's own row, in view where the finger was")
    func undoInTheRowOnAPhone() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup
            try await browser.emulateViewport(width: 390, height: 844)
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/reports")
            _ = try await browser.source(containing: "data-keyboard-list")
            let item = try #require(
                try await browser.execute(
                    "const b = document.querySelectorAll('[data-row] button[name=decision][value=resolve]')[2]; b.scrollIntoView({block: 'center'}); return b.closest('[data-row]').dataset.item;"
                ) as? String)

            // act: tap Resolve on the third report
            try await browser.click("[data-item='\(item)'] button[name=decision][value=resolve]")
            var inView = false
            for _ in 0..<150 where !inView {
                try await Task.sleep(for: .milliseconds(100))
                inView =
                    try await browser.execute(
                        "const u = document.querySelector(\"[data-item='\(item)'] form.flash-undo button\"); if (!u || !u.closest('[data-item]').classList.contains('live-decided')) { return false; } const b = u.getBoundingClientRect(); return !u.disabled && b.top >= 0 && b.bottom <= window.innerHeight;"
                    ) as? Bool ?? false
            }
            // act: tap that Undo
            try await browser.click("[data-item='\(item)'] form.flash-undo button")

            // check
            #expect(inView, "the Undo is in the row, in view, and still works once the live stream has marked the row decided")
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let latest = try await store.latestDecision(by: "staff", kind: .report, key: String(item.dropFirst("report:".count))) { $0.statusWanted == .open }
            #expect(latest?.statusWanted == .open, "the latest decision on it is the Undo's reopening")
            // The list shows it waiting again, with its Resolve, not as a row decided by the Undo.
            try await browser.go(console + "/reports")
            #expect(
                try await browser.waitUntil(
                    "return document.querySelector(\"[data-item='\(item)'] button[name=decision][value=resolve]\") !== null;", seconds: 5))
        }
    }
}
