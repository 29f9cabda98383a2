import BookCornersAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Pages: content, escaping, headers and failures", .timeLimit(.minutes(3)))
struct PageTests {
    @Test("every page carries the security headers", arguments: ["/", "/libraries", "/reports", "/photos", "/sign-in", "/nowhere"])
    func securityHeaders(path: String) async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let page = try await browser.get(path)
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"))
            #expect(csp.contains("frame-ancestors 'none'"))
            #expect(csp.contains("img-src 'self' http://127.0.0.1:"), "images from the backend's media origin")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "same-origin")
            #expect(page.headers[.cacheControl] == "no-store")
        }
    }

    @Test("the dashboard shows the counts, the oldest waiting items and the backend's state")
    func dashboard() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let page = try await browser.get("/")
            #expect(page.contains(#"<span class="stat" data-live-count="library">60</span> library submissions waiting"#))
            #expect(page.contains("Waiting longest"))
            #expect(page.contains("d ago"))
            #expect(page.contains("Data from Book Corners, as of"), "how fresh the mirrored data is")
            #expect(page.contains(#"Libraries <span class="count" data-live-count="library">60</span>"#))
        }
    }

    @Test("the libraries queue lists pending submissions and escapes the hostile one")
    func librariesEscaped() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let page = try await browser.get("/libraries?q=script&page_size=50")
            #expect(page.status == .ok)
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!page.contains("<script>alert(1)"))
            let all = try await browser.get("/libraries?page_size=50")
            #expect(all.contains("Unnamed library"), "a clear fallback for empty names")
            #expect(all.contains("Page 1 of 2 · 60 items"))
            #expect(all.contains(#"rel="next""#))
        }
    }

    @Test("a library's detail shows every field, the map link and flags a near duplicate")
    func detailWithDuplicate() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            try await browser.signIn()
            let slug = try #require(try await duplicateSlug(sandbox))
            let page = try await browser.get("/libraries/\(slug)")
            #expect(page.status == .ok)
            #expect(page.contains("Possible duplicate."))
            #expect(page.contains("within 50 m"))
            #expect(page.contains("https://www.openstreetmap.org/?mlat="))
            for label in ["Address", "Submitted by", "Wheelchair accessible", "Capacity", "Backend id"] { #expect(page.contains(label)) }
        }
    }

    @Test("a library back in pending after a rejection shows the old reason only as a previous rejection")
    func previousRejection() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup: straight at the backend, one library rejected and returned to pending (the
            // backend keeps its reason), another rejected now
            let token = try await sandbox.accessToken()
            let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending", token: token).jsonObject()
            let slugs = ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
            try #require(slugs.count >= 2)
            let (reopened, rejected) = (slugs[0], slugs[1])
            for (slug, body) in [
                (reopened, #"{"status": "rejected", "rejection_reason": "Photo shows a private garden."}"#),
                (reopened, #"{"status": "pending"}"#),
                (rejected, #"{"status": "rejected", "rejection_reason": "Duplicate submission."}"#),
            ] {
                #expect(try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, json: body).status == 200)
            }
            try await browser.signIn()
            // act
            let reopenedPage = try await browser.get("/libraries/\(reopened)")
            let rejectedPage = try await browser.get("/libraries/\(rejected)")
            // check
            #expect(reopenedPage.contains(#"Previously rejected because: <span dir="auto">Photo shows a private garden.</span>"#))
            #expect(!reopenedPage.contains("Rejection reason given"), "the old reason is not the current state")
            // Issue 21: the current decision says who made it (here: nobody the console knows), when, and why.
            #expect(rejectedPage.contains(#"with the reason: “<span dir="auto">Duplicate submission.</span>”</p>"#), "\(rejectedPage)")
            #expect(!rejectedPage.contains("Previously rejected"))
        }
    }

    @Test("the hostile library's detail page escapes name and description")
    func hostileDetail() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let list = try await browser.get("/libraries?q=script")
            let slug = try #require(list.html.range(of: #"href="/libraries/"#).map { String(list.html[$0.upperBound...].prefix { $0 != "\"" && $0 != "?" }) })
            let page = try await browser.get("/libraries/\(slug)")
            #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(page.contains("&lt;img src=x onerror=alert(2)&gt;"))
            #expect(!page.contains("<img src=x"))
        }
    }

    @Test("reports show the reason in words, details escaped, and filter by reason")
    func reports() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let page = try await browser.get("/reports?status=all")
            #expect(page.contains("Incorrect information"))
            #expect(page.contains("&lt;b&gt;not bold&lt;/b&gt;"))
            #expect(!page.contains("<b>not bold</b>"))
            let damaged = try await browser.get("/reports?status=all&reason=damaged")
            #expect(damaged.contains("Damaged") && !damaged.contains(#"<span class="reason">Missing"#))
        }
    }

    @Test("the photos grid shows each proposed photo beside the current one")
    func photos() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let page = try await browser.get("/photos")
            #expect(page.contains("Proposed") && page.contains("Current"))
            #expect(page.contains("/media/libraries/user_photos/"))
            #expect(page.html.components(separatedBy: #"class="photo-card""#).count - 1 == 12)
        }
    }

    @Test("an unknown library is a 404 page; an unknown path too")
    func notFound() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let library = try await browser.get("/libraries/no-such-library")
            #expect(library.status == .notFound)
            #expect(library.contains("no longer exists"))
            let path = try await browser.get("/no/such/page")
            #expect(path.status == .notFound)
            #expect(path.contains("There is no page here"))
        }
    }

    @Test("hostile query strings are bounded and echoed escaped")
    func hostileQuery() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let query = "\"><script>x</script> ‮ 📚"
            let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let page = try await browser.get("/libraries?q=\(encoded)&country=%3Cb%3E&page=-5&page_size=9999&status=evil")
            #expect(page.status == .ok)
            #expect(page.contains("&quot;&gt;&lt;script&gt;x&lt;/script&gt;"))
            #expect(!page.contains("<script>x</script>"))
            #expect(page.contains("No libraries match these filters."))
        }
    }

    @Test("a filter the address got wrong is ignored and said to be; a page number too large for a number is the last page")
    func ignoredFiltersAreSaid() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let libraries = try await browser.get("/libraries?status=bogus&reason=nope&country=Germany&order=sideways")
            #expect(libraries.status == .ok)
            for sentence in [
                "“\u{2068}bogus\u{2069}” is not a status, so waiting libraries are shown.",
                "“\u{2068}nope\u{2069}” is not a reason to look, so the list is not narrowed by reason.",
                "“\u{2068}Germany\u{2069}” is not a two-letter country code, so every country is shown.",
                "“\u{2068}sideways\u{2069}” is not an order this list offers, so it is in its usual order.",
            ] {
                #expect(libraries.contains(#"<span class="ignored-filter">\#(sentence)</span>"#), "\(sentence)")
            }
            #expect(libraries.contains(#"<option value="pending" selected>"#), "the list it shows instead is the waiting one, and says so in its filter")
            let fine = try await browser.get("/libraries?status=approved&country=de&order=oldest")
            #expect(!fine.contains("ignored-filter"), "known filters raise nothing")
            let reports = try await browser.get("/reports?status=bogus&reason=rude")
            #expect(
                reports.contains("“\u{2068}bogus\u{2069}” is not a status, so open reports are shown.")
                    && reports.contains("“\u{2068}rude\u{2069}” is not a report reason"))
            #expect(try await browser.get("/photos?status=bogus").contains("“\u{2068}bogus\u{2069}” is not a status, so waiting photos are shown."))
            // Reasons are for waiting libraries: a decided list filtered by one says why it is empty.
            let decided = try await browser.get("/libraries?status=approved&reason=strong")
            #expect(decided.contains("reasons to look are kept for waiting libraries only"))
            // Past the last page by a number too large for Int: the last page, as for any page past it.
            let last = try await browser.get("/libraries?status=all&page_size=10&page=99999")
            let huge = try await browser.get("/libraries?status=all&page_size=10&page=99999999999999999999999")
            let lastSummary = try #require(last.html.firstMatch(of: #/<nav class="pager"[\s\S]*?<span>([^<]*)</span>/#).map { String($0.1) })
            #expect(!lastSummary.hasPrefix("Page 1 of"), "the fixture has more than one page: \(lastSummary)")
            #expect(huge.html.contains("<span>\(lastSummary)</span>"), "the same last page: \(lastSummary)")
            #expect(huge.contains("There is no page that far: the last, "))
            #expect(last.contains("There is no page 99999: the last, "))
            // A repeated filter: the last value is used, and the list says so.
            let repeated = try await browser.get("/libraries?status=all&q=Sunrise&q=")
            #expect(repeated.contains("“q” was given 2 times: only the last, an empty one, is read."))
            for (address, said) in [
                ("/libraries?page=abc", "“\u{2068}abc\u{2069}” is not a page number, so page 1 is shown."),
                ("/libraries?page=0", "There is no page 0: pages start at 1."),
                ("/reports?page_size=7", "“\u{2068}7\u{2069}” is not a page size this list offers (10, 20, 50), so 20 are shown."),
                ("/photos?status=pending&status=approved", "“status” was given 2 times: only the last, “\u{2068}approved\u{2069}”, is read."),
                (
                    "/libraries?q=%FF",
                    "The address&#39;s “\u{2068}q\u{2069}” is not readable text (a broken % escape), so it is read as typed: “\u{2068}%FF\u{2069}”."
                ),
                (
                    "/libraries?source=a%2",
                    "The address&#39;s “\u{2068}source\u{2069}” is not readable text (a broken % escape), so it is read as typed: “\u{2068}a%2\u{2069}”."
                ),
            ] {
                #expect(try await browser.get(address).contains(said), "\(address)")
            }
            #expect(!(try await browser.get("/libraries?status=all&page=2&page_size=10")).contains("ignored-filter"), "a page that exists raises nothing")
            // Repeated, and the last one unknown: the two lines agree (the last is read, and ignored).
            let both = try await browser.get("/photos?status=open&status=resolved")
            #expect(both.contains("“\u{2068}resolved\u{2069}” is not a status, so waiting photos are shown."))
            #expect(both.contains("“status” was given 2 times: only the last, “\u{2068}resolved\u{2069}”, is read.") && !both.contains("is used"))
        }
    }

    @Test("a name the list reads nothing of (a misspelt filter) is named above it; the lists' own links and forms never raise it")
    func unknownNamesAreSaid() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let misspelt = try await browser.get("/libraries?stauts=approved")
            #expect(
                misspelt.contains(
                    "This list knows nothing of “\u{2068}stauts\u{2069}”, so it is ignored. It reads status, q, country, source, reason, order, page_size and page."
                ), "\(misspelt)")
            #expect(misspelt.contains(#"<option value="pending" selected>"#), "the list shown is the waiting one")
            let several = try await browser.get("/reports?a=1&b=2&a=3&c&d=4&status=all")
            #expect(
                several.contains("This list knows nothing of “\u{2068}a\u{2069}”, “\u{2068}b\u{2069}”, “\u{2068}c\u{2069}” or 1 more, so they are ignored."))
            #expect(
                try await browser.get("/photos?q=tree").contains(
                    "This list knows nothing of “\u{2068}q\u{2069}”, so it is ignored. It reads status, order, page and page_size."),
                "a filter of another list")
            #expect(
                !(try await browser.get("/libraries?bulk_item=no-such-library&bulk_decision=reject")).contains("knows nothing of"),
                "a bulk draft is the list's own")
            let long = try await browser.get("/photos?" + String(repeating: "x", count: 60) + "=1")
            #expect(long.contains("“\u{2068}" + String(repeating: "x", count: 39) + "…\u{2069}”"), "a long name is cut, and says so")
            let garbledUnknown = try await browser.get("/photos?q=%FF")
            #expect(garbledUnknown.contains("knows nothing of") && !garbledUnknown.contains("is not readable text"), "an ignored name is said once")
            // Every address the lists lead to themselves (pager, page sizes, order switch, filters
            // as their forms send them) is one they read whole.
            for start in [
                "/libraries?status=all&page_size=10&page=2&q=a&reason=strong", "/reports?status=all&page_size=10&page=2", "/photos?status=all&page_size=10",
            ] {
                let page = try await browser.get(start)
                let path = String(start.prefix { $0 != "?" })
                let links = page.html.matches(of: #/href="(/(?:libraries|reports|photos)\?[^"#]*)/#).map {
                    String($0.1).replacingOccurrences(of: "&amp;", with: "&")
                }
                #expect(links.contains { $0.hasPrefix(path + "?") }, "\(start) links to itself")
                for link in Set(links) {
                    #expect(!(try await browser.get(link)).contains("knows nothing of"), "\(link)")
                }
            }
            let filterForm = "/libraries?order=oldest&page_size=10&status=all&q=&country=&source=&reason="
            #expect(!(try await browser.get(filterForm)).contains("knows nothing of"), "the filter form as a browser sends it")
            #expect(!(try await browser.get("/reports?status=open&reason=&order=oldest")).contains("knows nothing of"))
        }
    }

    @Test("a library opened from a list's second page leads back to that page; switching the order starts again at page 1")
    func backToTheSamePage() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let second = try await browser.get("/libraries?status=all&page_size=10&page=2")
            let row = try #require(second.html.firstMatch(of: #/data-open="(/libraries/[a-z0-9-]+\?[^"]*)"/#).map { String($0.1) }, "\(second)")
            let address = row.replacingOccurrences(of: "&amp;", with: "&")
            #expect(address.contains("page=2"), "\(address)")
            let library = try await browser.get(address)
            #expect(library.contains(#"href="/libraries?status=all&amp;page_size=10&amp;page=2" data-key="list""#), "back to the list, its page 2")
            #expect(second.contains(#"<a href="/libraries?status=all&amp;order=oldest&amp;page_size=10">Oldest first</a>"#), "another order starts at page 1")
            #expect(!second.html.contains("page=2&amp;page="), "the pager's links carry one page each")
        }
    }

    @Test("a report opened from a list's second page leads back to that page; switching the order starts again at page 1")
    func reportBackToTheSamePage() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let second = try await browser.get("/reports?status=all&page_size=10&page=2")
            let row = try #require(second.html.firstMatch(of: #/data-open="(/reports/[0-9]+\?[^"]*)"/#).map { String($0.1) }, "\(second)")
            let address = row.replacingOccurrences(of: "&amp;", with: "&")
            #expect(address.contains("page=2"), "\(address)")
            let report = try await browser.get(address)
            #expect(report.contains(#"href="/reports?status=all&amp;page_size=10&amp;page=2" data-key="list""#), "back to the list, its page 2")
            let orderLinks = second.html.matches(of: #/href="(/reports\?[^"]*order=[^"]*)"/#).map { String($0.1) }
            #expect(!orderLinks.isEmpty && orderLinks.allSatisfy { !$0.contains("page=") }, "another order starts at page 1: \(orderLinks)")
            #expect(!second.html.contains("page=2&amp;page="), "the pager's links carry one page each")
            #expect(!second.contains("was given"), "one page in the address is not a repeated filter")
        }
    }

    @Test("a library opened with a search it does not match says it is not in that list, not that it is the list's last")
    func libraryOutsideItsList() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            // The newest waiting library: the last of the waiting list, oldest first.
            let list = try await browser.get("/libraries?status=pending&order=newest")
            let slug = try #require(list.html.firstMatch(of: #/id="library-([a-z0-9-]+)"/#).map { String($0.1) }, "\(list)")
            let outside = try await browser.get("/libraries/\(slug)?status=pending&q=zzqqxx")
            #expect(outside.contains("Not in this list: it does not match its search or filters"))
            #expect(!outside.contains("Last in this list"))
            let inside = try await browser.get("/libraries/\(slug)?status=pending")
            #expect(!inside.contains("Not in this list"))
            #expect(inside.contains("Last in this list"), "the oldest-first list's last waiting library")
        }
    }

    @Test("with the backend gone, pages render from the mirror as before, with no banner")
    func backendDown() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let port = try FreePort.find()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/v1/"))
        let app = try await buildConsoleApplication(
            configuration: ConsoleFixture.configuration(backendURL: url, directory: directory),
            logger: ConsoleFixture.quietLogger)
        try await app.test(.live) { client in
            try await ConsoleFixture.withMirror(.filled, directory: directory, backendURL: url) { fill in
                let browser = Browser(client: client, afterSignIn: fill)
                try await SandboxFixture.run(port: port) { _ in
                    try await browser.signIn()
                    #expect(try await browser.get("/libraries").status == .ok)
                }
                try await Task.sleep(for: .milliseconds(600))
                let mirrored = try await browser.get("/libraries")
                #expect(mirrored.status == .ok)
                #expect(!mirrored.contains("Backend problem."), "the page never asked the backend")
                #expect(mirrored.contains(#"<table class="queue" data-keyboard-list>"#), "the mirrored list is shown")
                let reports = try await browser.get("/reports?status=dismissed")
                #expect(reports.status == .ok)
                #expect(!reports.contains("Backend problem.") && !reports.contains("not loaded yet"))
            }
        }
    }

    @Test("static files are served with caching; a missing template stops start-up")
    func staticAndTemplates() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            let css = try await browser.get("/static/console.css")
            #expect(css.status == .ok)
            #expect(css.headers[.cacheControl] == "public, max-age=3600")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var configuration = ConsoleFixture.configuration(backendURL: try #require(URL(string: "http://127.0.0.1:1/api/v1/")), directory: directory)
        configuration.templatesDirectory = directory.url.path
        await #expect(throws: PageRendererError.missingTemplate("layout", directory: directory.url.path)) {
            _ = try await buildConsoleApplication(configuration: configuration)
        }
    }

    /// A pending submission with an approved library less than 50 m away.
    private func duplicateSlug(_ sandbox: SandboxFixture) async throws -> String? {
        let token = try await sandbox.accessToken()
        let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=50", token: token).jsonObject()
        for item in (list?["items"] as? [[String: Any]]) ?? [] {
            guard let lat = item["lat"] as? Double, let lng = item["lng"] as? Double, let slug = item["slug"] as? String else { continue }
            let near = try await sandbox.raw(.GET, "/api/v1/libraries/?lat=\(lat)&lng=\(lng)&radius_km=1").jsonObject()
            let close = ((near?["items"] as? [[String: Any]]) ?? []).contains { other in
                guard let a = other["lat"] as? Double, let b = other["lng"] as? Double else { return false }
                return GreatCircle.metres(lat, lng, a, b) < 50
            }
            if close { return slug }
        }
        return nil
    }
}
