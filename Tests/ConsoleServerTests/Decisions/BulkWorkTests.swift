import Foundation
import GRDB
import HummingbirdTesting
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Working through a long list in bulk: the confirmation tells namesakes apart, a reason can
/// be written as well as picked, the list comes back as it was, and in a real browser a header
/// box selects the page, shift-click a range, and the bar under the list counts the selection.
@Suite("Bulk work on the libraries list", .serialized, .timeLimit(.minutes(3)))
struct BulkWorkTests {
    /// Two pending "Sunrise Library Box" libraries in two cities, one with a photo.
    private func plantNamesakes(_ directory: TemporaryDirectory) async throws {
        let recent = Date().addingTimeInterval(-3_600)
        try await SandboxLibraryRows.insert(
            [
                [
                    "id": 940_001, "slug": "sunrise-paris", "name": "Sunrise Library Box", "city": "Paris", "address": "Rue Mouffetard 69",
                    "country": "FR", "lat": 48.84, "lng": 2.35, "status": "pending", "createdAt": recent,
                    "thumbnailUrl": "/media/sunrise-paris-thumb.jpg", "photoUrl": "/media/sunrise-paris.jpg",
                ],
                [
                    "id": 940_002, "slug": "sunrise-lyon", "name": "Sunrise Library Box", "city": "Lyon", "address": "Quai Saint-Antoine 2",
                    "country": "FR", "lat": 45.76, "lng": 4.83, "status": "pending", "createdAt": recent, "thumbnailUrl": "", "photoUrl": "",
                ],
            ], intoSandboxAt: directory.path("sandbox.sqlite"))
    }

    @Test("the bulk confirmation shows each library's place and photo, keeps a typed reason, and returns to the same list page")
    func confirmationAndReturn() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await plantNamesakes(directory)
            try await browser.signIn()
            let back = "/libraries?status=pending&q=Sunrise&order=newest&page=1&page_size=50"
            let list = try await browser.get(back)
            let reason = "Both are the same box, already on the map as \(PageModels.hostile)"
            // act
            let confirm = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", list.csrfToken ?? ""), ("key", list.field("key") ?? ""), ("back", back), ("decision", "reject"),
                    ("reason_preset", ""), ("reason", reason),
                    ("item", "sunrise-paris|pending|Sunrise Library Box"), ("item", "sunrise-lyon|pending|Sunrise Library Box"),
                ])
            let fields = confirm.hiddenFields(ofFormPostingTo: "/libraries/bulk/confirm")
            // check
            #expect(list.contains(#"name="reason""#) && list.contains("<textarea"), "a reason of one's own, beside the presets")
            #expect(confirm.status == .ok, "\(confirm)")
            #expect(confirm.contains("Reject 2 libraries?"))
            #expect(confirm.contains("Rue Mouffetard 69, Paris, FR") && confirm.contains("Quai Saint-Antoine 2, Lyon, FR"), "namesakes told apart")
            #expect(confirm.contains("sunrise-paris-thumb.jpg"), "each one's photo")
            #expect(confirm.contains(PageModels.escapedHostile), "the typed reason, escaped")
            #expect(!confirm.contains("<script>alert"))
            #expect(fields.contains { $0 == ("back", back) }, "\(fields)")
            // Cancel returns to the list as it was, the same rows ticked, the decision and reason kept
            let cancelURL = Page.unescaped(try #require(confirm.html.firstMatch(of: #/<a href="([^"]*)" data-key="cancel">/#).map { String($0.1) }))
            #expect(cancelURL.hasPrefix(back + "&bulk_item=sunrise-paris&bulk_item=sunrise-lyon&bulk_decision=reject&bulk_reason="), "\(cancelURL)")
            #expect(cancelURL.hasSuffix("#library-sunrise-paris"), "the list opens at the first ticked row")
            // (Cancel is followed before confirming: once confirmed, the rows wait for Book Corners and offer no box.)
            let cancelled = try await browser.get(String(cancelURL.prefix { $0 != "#" }))
            let done = try await browser.post("/libraries/bulk/confirm", form: fields)
            for slug in ["sunrise-paris", "sunrise-lyon"] {
                #expect(
                    cancelled.contains(#"value="\#(slug)|pending|Sunrise Library Box" aria-label="Select Sunrise Library Box" checked>"#),
                    "\(slug) still ticked")
            }
            #expect(cancelled.contains(#"<option value="reject" selected>Reject</option>"#))
            #expect(
                cancelled.contains(
                    #"placeholder="or your own reason">"# + "Both are the same box, already on the map as \(PageModels.escapedHostile)</textarea>"),
                "the reason as typed")
            #expect(
                cancelled.contains(#"<input type="hidden" name="back" value="\#(back.replacingOccurrences(of: "&", with: "&amp;"))">"#),
                "its forms return without the draft")
            #expect(done.status == .seeOther)
            #expect(done.location == back, "the same filters, order and page after the decision")
            let store = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            let reasons = try await store.read { db in try String.fetchAll(db, sql: "SELECT reason FROM action ORDER BY id") }
            #expect(reasons == [reason, reason])
        }
    }

    @Test("the single rejection's confirmation names the library and where it is")
    func singleRejectNamesLibrary() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await plantNamesakes(directory)
            try await browser.signIn()
            let page = try await browser.get("/libraries/sunrise-lyon")
            // act
            let confirm = try await browser.post(
                "/libraries/sunrise-lyon/decide",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("key", "k-reject"), ("seen", "pending"), ("decision", "reject"),
                    ("reason", "Not a book-sharing library."),
                ])
            // check
            #expect(confirm.status == .ok)
            #expect(confirm.contains(#"<h1>Reject <span dir="auto" class="">Sunrise Library Box</span>?</h1>"#), "\(confirm)")
            #expect(confirm.contains("Quai Saint-Antoine 2, Lyon, FR"))
        }
    }

    @Test("every list offers 20 or 50 per page, keeping its filters")
    func pageSizes() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            try await browser.signIn()
            // act
            let libraries = try await browser.get("/libraries?status=all&q=a")
            let reports = try await browser.get("/reports?status=all&page_size=50")
            // check
            #expect(libraries.contains(#"href="/libraries?status=all&amp;q=a&amp;page_size=50">50</a>"#), "\(libraries.html.suffix(800))")
            #expect(libraries.contains(#"<strong aria-current="true">20</strong>"#))
            #expect(reports.contains(#"<strong aria-current="true">50</strong>"#))
            #expect(reports.contains(#"page_size=20">20</a>"#))
            #expect(reports.contains(#"<input type="hidden" name="page_size" value="50">"#), "filtering keeps the page size")
            #expect(!libraries.contains(#"name="page_size""#), "the standard size needs no field")
        }
    }

    @Test("in Chromium: the header box selects the page, shift-click selects a range, and the bar under the list counts and stays in sight")
    func selectionInABrowser() async throws {
        try await ConsoleFixture.withBrowser { browser, console, _, _ in
            // setup: signed in, on a long pending list
            try await browser.signInAsStaff(console: console)
            try await browser.go(console + "/libraries?status=pending&page_size=50")
            _ = try await browser.source(containing: "data-selection-count")
            func checked() async throws -> [Bool] {
                (try await browser.execute(
                    "return Array.from(document.querySelectorAll('input[name=item]')).map(function (b) { return b.checked; });") as? [Bool]) ?? []
            }
            func countText() async throws -> String {
                (try await browser.execute("return document.querySelector('[data-selection-count]').textContent;") as? String) ?? ""
            }
            // act: a range with shift-click
            try await browser.click("table.queue tbody tr:nth-child(2) input[name=item]")
            try await browser.shiftClick("table.queue tbody tr:nth-child(5) input[name=item]")
            let range = try await checked()
            let rangeCount = try await countText()
            // act: the header box, twice
            try await browser.click("th[data-select-all] input[type=checkbox]")
            let all = try await checked()
            let allCount = try await countText()
            try await browser.click("th[data-select-all] input[type=checkbox]")
            let none = try await checked()
            // the bar at the bottom of the window, with the list scrolled to its top
            // a list opened with a draft (a review's Cancel) ticks its rows, then drops the draft from its address
            let firstValue = try #require(
                try await browser.execute("return document.querySelector('table.queue input[name=item]').value;") as? String)
            let firstSlug = String(firstValue.prefix { $0 != "|" })
            try await browser.go(console + "/libraries?status=pending&page_size=50&bulk_item=\(firstSlug)&bulk_decision=reject")
            _ = try await browser.source(containing: "data-selection-count")
            let draftTicked = try await browser.execute("return document.querySelector('table.queue input[name=item]').checked;") as? Bool
            let address = try await browser.execute("return window.location.search;") as? String
            #expect(draftTicked == true, "the draft's row is ticked")
            #expect(address == "?status=pending&page_size=50", "the address is the list's own again: \(address ?? "")")
            let bar =
                try await browser.execute(
                    """
                    window.scrollTo(0, 0);
                    var r = document.querySelector('form.bulk .bulk-bar').getBoundingClientRect();
                    return [r.top, r.bottom, window.innerHeight];
                    """) as? [Double] ?? []
            // check
            #expect(range.count > 10)
            #expect(Array(range.prefix(6)) == [false, true, true, true, true, false], "rows 2 to 5: \(range.prefix(6))")
            #expect(rangeCount.hasPrefix("4 libraries selected"), "\(rangeCount)")
            #expect(all.allSatisfy { $0 } && allCount.hasPrefix("\(all.count) libraries selected"), "\(allCount)")
            #expect(none.allSatisfy { !$0 })
            #expect(bar.count == 3 && bar[1] <= bar[2] + 1 && bar[0] > 0, "the bar is in sight at the top of a long list: \(bar)")
        }
    }
}
