import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 47, item 7: words that match what happens, and one name per thing.
@Suite("In a real browser: words that match what happens", .serialized, .timeLimit(.minutes(5)))
struct WordsThatMatchBrowserTests {
    @Test(
        "a row claimed then approved in place says \"Approved: name in city.\" in full, and shows neither You are reviewing nor Overdue once decided"
    )
    func decidedRowWords() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            _ = try await browser.source(containing: "data-keyboard-list")
            let row = try #require(
                try await browser.execute(
                    "const r = Array.from(document.querySelectorAll('[data-row]')).find(r => r.querySelector('button[name=quick]') && r.querySelector('.claim-button') && r.querySelector('.standing')); r.scrollIntoView({block: 'center'}); return r.dataset.item;"
                ) as? String, "a waiting row with a one-click Approve, a claim button and an overdue mark")
            let selector = "[data-item='\(row)']"

            // act: claim it, then approve it, with clicks
            try await browser.click("\(selector) .claim-button")
            #expect(try await browser.waitUntil("return document.querySelector(\"\(selector) .claim-mine\") !== null;"))
            try await browser.click("\(selector) button[name=quick]")
            #expect(try await browser.waitUntil("return document.querySelector(\"\(selector)\").classList.contains('live-decided');"))

            // check: what the row shows, as a person sees it (once Book Corners has the decision: a loaded machine may take seconds)
            #expect(try await browser.waitUntil("return /Approved/.test(document.querySelector(\"\(selector)\").innerText);", seconds: 15))
            let shown = try await browser.execute("return document.querySelector(\"\(selector)\").innerText;") as? String ?? ""
            let lines = shown.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.contains { $0.hasPrefix("Approved") }, "\(shown)")
            #expect(lines.allSatisfy { !$0.hasSuffix(":") }, "no line ends at a colon with nothing after it: \(shown)")
            #expect(!shown.contains("You are reviewing"), "\(shown)")
            #expect(!shown.contains("Overdue") && !shown.contains("overdue"), "\(shown)")
        }
    }

    @Test(
        "a on a report says Resolving; a on a row a colleague claimed meanwhile says who has it and that nothing was sent; the bulk review and the reject preview keep a two-line reason's lines"
    )
    func spokenWords() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, directory in
            // setup
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await browser.signInAsStaff(console: console)

            // act 1: a on the first report
            try await browser.go(console + "/reports")
            _ = try await browser.source(containing: "data-keyboard-list")
            try await browser.press("j", "a")
            let onReport = try await browser.spokenText()

            // act 2: a colleague claims the second pending row while the list is open; j j a
            try await browser.go(console + "/libraries?status=pending")
            _ = try await browser.source(containing: "data-keyboard-list")
            let second = try #require(try await browser.execute("return document.querySelectorAll('[data-row]')[1].dataset.item;") as? String)
            _ = try await store.claim(
                .init(kind: .library, key: String(second.dropFirst("library:".count))), holderId: 999_002, holderUsername: "maria", now: Date(),
                duration: 600)
            #expect(try await browser.waitUntil("return document.querySelector(\"[data-item='\(second)']\").classList.contains('live-claimed');"))
            try await browser.press("j", "j", "a")
            let onClaimed = try await browser.spokenText()

            // act 3: two rows ticked, rejected in bulk with a two-line reason
            try await browser.go(console + "/libraries?status=pending")
            _ = try await browser.source(containing: "data-keyboard-list")
            try await browser.click("table.queue tbody tr:nth-child(3) input[name=item]")
            try await browser.click("table.queue tbody tr:nth-child(4) input[name=item]")
            try await browser.click(".bulk-bar select[name=decision] option[value=reject]")
            try await browser.type("Not a book exchange.\nPlease send a photo.", into: ".bulk-bar textarea[name=reason]")
            try await browser.click(".bulk-bar button[type=submit]")
            _ = try await browser.source(containing: "Reject 2 libraries")
            let bulkReason = try await browser.execute("return document.querySelector('.reason-preview').innerText;") as? String ?? ""
            let rate = try await browser.execute("return document.querySelector('main').innerText;") as? String ?? ""

            // check
            #expect(onReport.hasPrefix("Resolving "), "\(onReport)")
            #expect(onClaimed.contains("maria is reviewing") && onClaimed.contains("Nothing was sent"), "\(onClaimed)")
            #expect(bulkReason == "Not a book exchange.\nPlease send a photo.", "\(bulkReason)")
            #expect(rate.contains("Book Corners takes 10 changes per 5 minutes from the console"))
        }
    }

    @Test(
        "a nearby library goes by one name on the list and its page: possible or likely duplicate, never duplicate?, within 50 m or strong; only a likely one is a red alert"
    )
    func oneNameForADuplicate() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            _ = try await browser.source(containing: "data-keyboard-list")
            let listText = try await browser.execute("return document.querySelector('main').innerText;") as? String ?? ""
            let links = try #require(
                try await browser.execute(
                    "return Array.from(document.querySelectorAll('[data-row]')).map(r => [r.querySelector('a').getAttribute('href'), Array.from(r.querySelectorAll('.concern')).map(c => c.textContent).join(' ')]).filter(p => /duplicate/.test(p[1]));"
                ) as? [[String]])
            let possible = links.filter { $0[1].contains("possible duplicate") }, likely = links.filter { $0[1].contains("likely duplicate") }
            try #require(!possible.isEmpty && !likely.isEmpty, "\(links)")
            var pages: [(badge: String, text: String, alert: Bool)] = []
            for pair in possible.prefix(2) + likely.prefix(2) {
                try await browser.go(console + pair[0])
                _ = try await browser.source(containing: "compare-heading")
                let text = try await browser.execute("return document.querySelector('main').innerText;") as? String ?? ""
                let alert = try await browser.execute("return document.querySelector('p.warning[role=alert]') !== null;") as? Bool ?? false
                let flags =
                    try await browser.execute(
                        "return Array.from(document.querySelectorAll('.candidate-label .flag, .concern-list .flag')).map(f => f.textContent);") as? [String]
                    ?? []
                pages.append((pair[1], text, alert))
                #expect(
                    Set(flags).isSubset(of: [
                        "possible duplicate", "likely duplicate", "same name", "Possible duplicate", "Likely duplicate", "Strong", "Worth a look",
                    ]), "\(flags)")
                #expect(flags.contains { $0.lowercased().contains("duplicate") }, "\(flags)")
            }

            // check
            #expect(!listText.contains("duplicate?"), "the list still says duplicate?")
            #expect(
                pages.allSatisfy { !$0.text.contains("duplicate?") && !$0.text.contains("within 50 m\n") }, "a page still calls it duplicate? or within 50 m")
            for page in pages {
                #expect(page.alert == page.badge.contains("likely duplicate"), "red alert only for a likely duplicate: \(page.badge)")
                #expect(!page.text.contains("STRONG") && !page.text.contains("\nstrong "), "\(page.badge)")
            }
        }
    }
}
