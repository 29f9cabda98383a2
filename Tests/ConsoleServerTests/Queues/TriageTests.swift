import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Triage at speed: waiting queues open oldest first, a library's page leads on to the next
/// one of its list after a decision, and "previous", "next" and "back" keep the list.
@Suite("Triage: queue order and the next item", .timeLimit(.minutes(3)))
struct TriageTests {
    /// Every pending slug as the backend lists them (newest first), read page by page.
    private func backendPendingSlugs(_ sandbox: SandboxFixture) async throws -> [String] {
        let token = try await sandbox.accessToken()
        var slugs: [String] = []
        for page in 1... {
            let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation?status=pending&page_size=50&page=\(page)", token: token).jsonObject()
            slugs += ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
            guard (list?["pagination"] as? [String: Any])?["has_next"] as? Bool == true else { break }
        }
        return slugs
    }

    /// The library slugs a list page links to, in order.
    private func listedSlugs(_ page: Page) -> [String] {
        var slugs: [String] = []
        for target in page.linkTargets where target.hasPrefix("/libraries/") && !target.contains("#") {
            guard let query = target.firstIndex(of: "?") else { continue }
            let slug = String(target[target.index(target.startIndex, offsetBy: "/libraries/".count)..<query])
            // A row links its library twice (name, Reject…): count it once.
            if slugs.last != slug { slugs.append(slug) }
        }
        return slugs
    }

    @Test("the pending queue opens oldest first: the backend's last page first, read backwards, with an exact pager and a switch")
    func oldestFirst() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup
            try await browser.signIn()
            let newestFirst = try await backendPendingSlugs(sandbox)
            try #require(newestFirst.count > 25, "two pages of 20 at least")
            let oldestFirst = Array(newestFirst.reversed())
            // act
            let first = try await browser.get("/libraries")
            let second = try await browser.get("/libraries?status=pending&page=2")
            let newest = try await browser.get("/libraries?status=pending&order=newest")
            // check
            #expect(listedSlugs(first) == Array(oldestFirst.prefix(20)))
            #expect(listedSlugs(second) == Array(oldestFirst.dropFirst(20).prefix(20)))
            #expect(listedSlugs(newest) == Array(newestFirst.prefix(20)))
            let pages = (newestFirst.count + 19) / 20
            #expect(first.contains("Page 1 of \(pages) · \(newestFirst.count) items"), "the count is the backend's")
            #expect(first.contains(#"<strong aria-current="true">Oldest first</strong>"#))
            #expect(first.linkTargets.contains("/libraries?status=pending&order=newest"), "the switch to newest first")
            #expect(first.linkTargets.contains("/libraries?status=pending&page=2&page_size=20"))
            #expect(first.contains(#"rel="next">Newer →</a>"#), "oldest first, the next page holds newer items")
            #expect(newest.contains(#"<input type="hidden" name="order" value="newest">"#), "filtering keeps a chosen order")
            #expect(newest.linkTargets.contains("/libraries?status=pending&order=newest&page=2&page_size=20"))
            let approved = try await browser.get("/libraries?status=approved")
            #expect(approved.contains(#"<strong aria-current="true">Newest first</strong>"#), "decided lists keep the backend's order")
        }
    }

    @Test("after a decision on a library's page the next one of its list opens, with the outcome on top; the last leads back to the list")
    func nextAfterDecision() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup: a narrow list, so its last item is near
            try await browser.signIn()
            let oldest = Array(try await backendPendingSlugs(sandbox).reversed())
            let list = try await browser.get("/libraries?status=pending&page_size=50")
            let firstURL = try #require(list.linkTargets.first { $0.hasPrefix("/libraries/\(oldest[0])?") })
            let page = try await browser.get(firstURL)
            let key = try #require(page.field("key", after: #"data-key="list""#))
            let queue = Page.unescaped(try #require(page.field("queue", after: #"data-key="list""#)))
            // act
            let decided = try await browser.post(
                "/libraries/\(oldest[0])/decide",
                form: [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve"), ("queue", queue)])
            let next = try await browser.get(try #require(decided.location))
            // check
            #expect(queue == "status=pending&page_size=50")
            #expect(page.linkTargets.contains("/libraries?status=pending&page_size=50"), "back to the same list")
            #expect(page.linkTargets.contains("/libraries/\(oldest[1])?status=pending&page_size=50"), "next")
            #expect(decided.status == .seeOther)
            #expect(decided.location == "/libraries/\(oldest[1])?status=pending&page_size=50")
            #expect(next.contains(#"<div class="flash" role="status">"#), "the outcome of the last decision on top")
            #expect(!next.contains(#"data-key="previous""#), "the one just decided left the list: this is its first now")
            #expect(next.linkTargets.contains("/libraries/\(oldest[2])?status=pending&page_size=50"), "and the next one after it")
        }
    }

    @Test("the last library of a list leads back to the list after its decision, and says it is the last")
    func lastLeadsToList() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup: newest first, the last of the list is the oldest pending library
            try await browser.signIn()
            let oldest = try #require(try await backendPendingSlugs(sandbox).last)
            let page = try await browser.get("/libraries/\(oldest)?status=pending&order=newest")
            let key = try #require(page.field("key", after: #"data-key="list""#))
            // act
            let decided = try await browser.post(
                "/libraries/\(oldest)/decide",
                form: [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve"), ("queue", "status=pending&order=newest")])
            // check
            #expect(page.contains("Last in this list"))
            #expect(!page.contains(#"data-key="next""#))
            #expect(decided.location == "/libraries?status=pending&order=newest")
        }
    }

    @Test("a rejection's confirmation carries the list on: confirming leads to the next library, cancelling back to this one")
    func rejectionKeepsTheList() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup
            try await browser.signIn()
            let oldest = Array(try await backendPendingSlugs(sandbox).reversed())
            let page = try await browser.get("/libraries/\(oldest[0])")
            let key = try #require(page.field("key", after: #"class="reject-form""#))
            let form = [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "reject"), ("queue", "status=pending")]
            // act
            let confirm = try await browser.post("/libraries/\(oldest[0])/decide", form: form + [("reason", "Not a <b>library</b> at all")])
            let confirmed = try await browser.post(
                "/libraries/\(oldest[0])/decide",
                form: form + [("reason", "Not a <b>library</b> at all"), ("confirmed", "1")])
            // check
            #expect(confirm.contains(#"<input type="hidden" name="queue" value="status=pending">"#))
            #expect(confirm.linkTargets.contains("/libraries/\(oldest[0])?status=pending"), "cancel returns to the library, in its list")
            #expect(confirm.contains("Not a &lt;b&gt;library&lt;/b&gt; at all"))
            #expect(confirmed.location == "/libraries/\(oldest[1])?status=pending")
        }
    }

    @Test("next skips a library a colleague is reviewing")
    func nextSkipsClaimed() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup: maria holds a claim on the second oldest
            try await browser.signIn()
            let oldest = Array(try await backendPendingSlugs(sandbox).reversed())
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await store.claim(.init(kind: .library, key: oldest[1]), holderId: 999_001, holderUsername: "maria", now: Date(), duration: 900)
            // act
            let page = try await browser.get("/libraries/\(oldest[0])")
            // check
            #expect(page.linkTargets.contains("/libraries/\(oldest[2])?status=pending"), "the one after maria's")
            #expect(!page.linkTargets.contains("/libraries/\(oldest[1])?status=pending"))
        }
    }

    @Test("open reports and pending photos open oldest first too, with the switch; a decision returns to the list as it was asked for")
    func reportsAndPhotosOldestFirst() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let reports = try await store.oldestMirroredReports(status: .open, count: 3).map { "/reports/\($0.id)/decide" }
            let photos = try await store.oldestMirroredPhotos(status: .pending, count: 3).map { "/photos/\($0.id)/decide" }
            try #require(reports.count == 3 && photos.count == 3)
            // act
            let reportPage = try await browser.get("/reports")
            let photoPage = try await browser.get("/photos?order=newest")
            // check
            #expect(Array(reportPage.linkTargets.filter { $0.hasPrefix("/reports/") && $0.hasSuffix("/decide") }.prefix(3)) == reports)
            #expect(reportPage.contains(#"<strong aria-current="true">Oldest first</strong>"#))
            #expect(reportPage.linkTargets.contains("/reports?status=open&order=newest"))
            // Each card has two forms posting to its decide address (use, reject with a reason): one per card counts.
            func cardOrder(_ page: Page) -> [String] {
                page.linkTargets.filter { $0.hasPrefix("/photos/") && $0.hasSuffix("/decide") }.reduce(into: [String]()) { order, target in
                    if order.last != target { order.append(target) }
                }
            }
            #expect(!cardOrder(photoPage).prefix(3).elementsEqual(photos))
            #expect(photoPage.contains(#"<input type="hidden" name="back" value="/photos?order=newest">"#), "decisions return to this list, in its order")
            let oldestPhotos = try await browser.get("/photos")
            #expect(Array(cardOrder(oldestPhotos).prefix(3)) == photos)
        }
    }

    @Test(
        "a report's page has previous and next in its list; a decision on it opens the next report of that list, with its Undo; the last leads back to the list"
    )
    func reportNextAfterDecision() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: the three oldest open reports, opened from the list oldest first
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let oldest = try await store.oldestMirroredReports(status: .open, count: 3).map(\.id)
            try #require(oldest.count == 3)
            let list = try await browser.get("/reports?status=open&order=oldest")
            let firstURL = try #require(list.linkTargets.first { $0.hasPrefix("/reports/\(oldest[0])?") })
            let first = try await browser.get(firstURL)
            let second = try await browser.get("/reports/\(oldest[1])?status=open")
            let key = try #require(first.field("key", after: #"data-key="list""#))
            let queue = Page.unescaped(try #require(first.field("queue", after: #"data-key="list""#)))
            // act
            let decided = try await browser.post(
                "/reports/\(oldest[0])/decide",
                form: [
                    ("csrf", first.csrfToken ?? ""), ("key", key), ("queue", queue), ("seen", "open"), ("decision", "resolve"),
                    ("back", "/reports/\(oldest[0])"),
                ])
            let next = try await browser.get(try #require(decided.location))
            // check
            #expect(firstURL == "/reports/\(oldest[0])?status=open", "the list's rows open their report in the list")
            #expect(queue == "status=open")
            #expect(first.linkTargets.contains("/reports?status=open"), "back to the same list")
            #expect(first.linkTargets.contains("/reports/\(oldest[1])?status=open"), "next")
            #expect(!first.contains(#"data-key="previous""#), "the oldest has nothing before it")
            #expect(second.linkTargets.contains("/reports/\(oldest[0])?status=open"), "previous")
            #expect(decided.status == .seeOther)
            #expect(decided.location == "/reports/\(oldest[1])?status=open", "on to the next report")
            #expect(next.contains("resolved. Undo") || next.contains("flash-undo"), "the outcome and its Undo on top of the next report")
            // newest first, the oldest open report (oldest[1], now that oldest[0] is resolved) is the last
            let lastPage = try await browser.get("/reports/\(oldest[1])?status=open&order=newest")
            #expect(lastPage.contains("Last in this list"))
            let fromLast = try await browser.post(
                "/reports/\(oldest[1])/decide",
                form: [
                    ("csrf", lastPage.csrfToken ?? ""), ("key", try #require(lastPage.field("key", after: #"data-key="list""#))),
                    ("queue", "status=open&order=newest"), ("seen", "open"), ("decision", "dismiss"),
                ])
            #expect(fromLast.location == "/reports?status=open&order=newest")
        }
    }
}
