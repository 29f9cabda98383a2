import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("SiteURL: one place for every route and link", .timeLimit(.minutes(3)))
struct SiteURLTests {
    /// A slug no backend should produce, with everything a path segment must not hold raw.
    static let oddSlug = #"odd slug #1?/100% "é" 'ok' 📚"#
    static let encodedOddSlug = "odd%20slug%20%231%3F%2F100%25%20%22%C3%A9%22%20%27ok%27%20%F0%9F%93%9A"

    /// Each address, its finished path and the pattern its route registers.
    static let table: [(url: SiteURL, path: String, pattern: String)] = [
        (.dashboard, "/", "/"),
        (.healthz, "/healthz", "/healthz"),
        (.readyz, "/readyz", "/readyz"),
        (.signIn, "/sign-in", "/sign-in"),
        (.signInLink("t0k3n"), "/sign-in/link/t0k3n", "/sign-in/link/:token"),
        (.signOut, "/sign-out", "/sign-out"),
        (.libraries, "/libraries", "/libraries"),
        (.library("corner-books_2"), "/libraries/corner-books_2", "/libraries/:slug"),
        (.libraryDecide("corner-books"), "/libraries/corner-books/decide", "/libraries/:slug/decide"),
        (.librariesBulk, "/libraries/bulk", "/libraries/bulk"),
        (.librariesBulkConfirm, "/libraries/bulk/confirm", "/libraries/bulk/confirm"),
        (.reports, "/reports", "/reports"),
        (.report(42), "/reports/42", "/reports/:id"),
        (.reportDecide(42), "/reports/42/decide", "/reports/:id/decide"),
        (.reportNote(42), "/reports/42/note", "/reports/:id/note"),
        (.photos, "/photos", "/photos"),
        (.unsentWork("k3y"), "/unsent/k3y", "/unsent/:key"),
        (.unsentWorkDiscard("k3y"), "/unsent/k3y/discard", "/unsent/:key/discard"),
        (.photo(7), "/photos/7", "/photos/:id"),
        (.concernFigures, "/reasons", "/reasons"),
        (.concernSettings, "/reasons/settings", "/reasons/settings"),
        (.photoDecide(7), "/photos/7/decide", "/photos/:id/decide"),
        (.claim(.init(kind: .library, key: "corner-books")), "/libraries/corner-books/claim", "/libraries/:slug/claim"),
        (.claimRelease(.init(kind: .library, key: "corner-books")), "/libraries/corner-books/release", "/libraries/:slug/release"),
        (.claimTakeOver(.init(kind: .library, key: "corner-books")), "/libraries/corner-books/take-over", "/libraries/:slug/take-over"),
        (.claim(.init(kind: .report, key: "42")), "/reports/42/claim", "/reports/:id/claim"),
        (.claimRelease(.init(kind: .report, key: "42")), "/reports/42/release", "/reports/:id/release"),
        (.claimTakeOver(.init(kind: .report, key: "42")), "/reports/42/take-over", "/reports/:id/take-over"),
        (.claim(.init(kind: .photo, key: "7")), "/photos/7/claim", "/photos/:id/claim"),
        (.claimRelease(.init(kind: .photo, key: "7")), "/photos/7/release", "/photos/:id/release"),
        (.claimTakeOver(.init(kind: .photo, key: "7")), "/photos/7/take-over", "/photos/:id/take-over"),
        (.outbox, "/outbox", "/outbox"),
        (.outboxMessage("3F2504E0-4F89"), "/outbox/3F2504E0-4F89", "/outbox/:id"),
        (.outboxRetry("3F2504E0-4F89"), "/outbox/3F2504E0-4F89/retry", "/outbox/:id/retry"),
        (.outboxDiscard("3F2504E0-4F89"), "/outbox/3F2504E0-4F89/discard", "/outbox/:id/discard"),
        (.devices, "/devices", "/devices"),
        (.deviceRemove(5), "/devices/5/remove", "/devices/:id/remove"),
        (.audit, "/audit", "/audit"),
        (.auditEntry(12), "/audit/12", "/audit/:id"),
        (.auditVerify, "/audit/verify", "/audit/verify"),
        (.auditExport, "/audit/export", "/audit/export"),
        (.auditSummary, "/audit/summary", "/audit/summary"),
        (.statistics, "/statistics", "/statistics"),
        (.statisticsData("countries"), "/statistics/data/countries", "/statistics/data/:chart"),
        (.events, "/events", "/events"),
        (.decisionCancel(9), "/decisions/9/cancel", "/decisions/:id/cancel"),
        (.staticFile("console.css"), "/static/console.css", "/static/:name"),
        (.onCall, "/on-call", "/on-call"),
        (.onCallAlerts, "/on-call/alerts", "/on-call/alerts"),
        (.onCallHandoffs, "/on-call/handoffs", "/on-call/handoffs"),
        (.onCallRotation, "/on-call/rotation", "/on-call/rotation"),
        (.onCallClock, "/on-call/clock", "/on-call/clock"),
        (.onCallOverrides, "/on-call/overrides", "/on-call/overrides"),
        (.onCallOverrideRemove(3), "/on-call/overrides/3/remove", "/on-call/overrides/:id/remove"),
        (.onCallCalendarFeed, "/on-call/calendar-feed", "/on-call/calendar-feed"),
        (.onCallCalendarFeedRevoke, "/on-call/calendar-feed/revoke", "/on-call/calendar-feed/revoke"),
        (.calendarFeed("abc_-9"), "/calendar/abc_-9", "/calendar/:token"),
        // On call: hand-offs
        (.onCallHandoff(12), "/on-call/handoffs/12", "/on-call/handoffs/:handoff"),
        (.onCallHandoffNote, "/on-call/handoffs/note", "/on-call/handoffs/note"),
        (.onCallHandoffFollowUp(12), "/on-call/handoffs/12/follow-up", "/on-call/handoffs/:handoff/follow-up"),
        (.onCallHandoffDismiss(12), "/on-call/handoffs/12/dismiss", "/on-call/handoffs/:handoff/dismiss"),
        // On call: alerts
        (.onCallTarget, "/on-call/alerts/targets", "/on-call/alerts/targets"),
        (.onCallAlertAcknowledge(4), "/on-call/alerts/4/acknowledge", "/on-call/alerts/:id/acknowledge"),
    ]

    @Test("every address has its path and its route's pattern, and the table names every route")
    func pathsAndPatterns() {
        for row in Self.table {
            // check
            #expect(row.url.path == row.path)
            #expect(row.url.route.pattern == RouterPath(row.pattern))
        }
        #expect(Set(Self.table.map(\.url.route)) == Set(SiteURL.Route.allCases), "a new route needs a row here")
    }

    @Test("a slug with a space, #, ?, /, %, quotes, é and an emoji is one percent-encoded segment")
    func oddSlugIsEncoded() {
        // act
        let library = SiteURL.library(Self.oddSlug).path
        let decide = SiteURL.libraryDecide(Self.oddSlug).path
        // check
        #expect(library == "/libraries/" + Self.encodedOddSlug)
        #expect(decide == "/libraries/\(Self.encodedOddSlug)/decide")
        #expect(SiteURL.encoded("Az09-._~") == "Az09-._~", "RFC 3986 unreserved characters stay as they are")
    }

    @Test(
        "query names and values are percent-encoded; items without a value are left out",
        arguments: [
            ([("q", "a&b=c #é+"), ("country", nil), ("page", "2")], "/libraries?q=a%26b%3Dc%20%23%C3%A9%2B&page=2"),
            ([("country", nil)], "/libraries"),
            ([("next", "/audit?staff=x y")], "/libraries?next=%2Faudit%3Fstaff%3Dx%20y"),
        ] as [([(String, String?)], String)])
    func queryIsEncoded(items: [(String, String?)], expected: String) {
        // act
        let path = SiteURL.libraries.path(query: items.map { (name: $0.0, value: $0.1) })
        // check
        #expect(path == expected)
    }

    @Test(
        "the router matches an encoded odd slug and the route hands it back decoded",
        arguments: [
            (SiteURL.library(oddSlug), HTTPRequest.Method.get), (SiteURL.libraryDecide(oddSlug), .post),
        ])
    func oddSlugRoundTrips(url: SiteURL, method: HTTPRequest.Method) async throws {
        // setup
        let router = Router()
        router.on(url.route.pattern, method: method) { _, context in
            url.route.value(in: context.parameters) ?? "(no value)"
        }
        let app = Application(router: router)
        // act
        try await app.test(.router) { client in
            let response = try await client.execute(uri: url.path, method: method)
            // check
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == Self.oddSlug)
        }
    }

    @Test("every route the console's router registers is a SiteURL pattern, and every SiteURL route but static files is registered")
    func routerRegistersOnlySiteURLPatterns() async throws {
        // act
        let routes = try await ConsoleFixture.registeredRoutes()
        // check
        let registered = Set(routes.map(\.path))
        let patterns = Set(SiteURL.Route.allCases.map(\.pattern.description))
        #expect(registered.subtracting(patterns).isEmpty, "routes written without SiteURL: \(registered.subtracting(patterns).sorted())")
        let served = Set(SiteURL.Route.allCases.filter { $0 != .staticFile }.map(\.pattern.description))
        #expect(served.subtracting(registered).isEmpty, "SiteURL routes no controller registers: \(served.subtracting(registered).sorted())")
    }

    @Test("no template writes a path: links and form actions come from the page model")
    func templatesHoldNoPaths() throws {
        // setup
        let directory = RepositoryPaths.templates
        let files = (FileManager.default.enumerator(atPath: directory)?.allObjects.compactMap { $0 as? String } ?? []).filter { $0.hasSuffix(".mustache") }
        #expect(!files.isEmpty)
        for file in files {
            // act
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            let literals = text.matches(of: #/(?:href|src|action|formaction)="(/[^"]*)"/#).map { String($0.1) }
            // check
            #expect(literals.isEmpty, "\(file) writes \(literals)")
        }
    }

    @Test("the libraries list and the dashboard link a library with an odd slug encoded, and that link answers the 404 page, not a 500")
    func consoleEncodesAnOddSlug() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: a pending library whose slug holds every character a path segment must not hold raw
            try await SandboxLibraryRows.insert(
                [
                    [
                        "id": 900_001, "slug": Self.oddSlug, "name": "Zebracorner Oddity",
                        // The oldest in the queue, so the dashboard lists it too.
                        "createdAt": Date(timeIntervalSince1970: 946_684_800),
                    ]
                ], intoSandboxAt: directory.path("sandbox.sqlite"))
            try await browser.signIn()
            // act
            let list = try await browser.get("/libraries?q=Zebracorner")
            // check
            #expect(list.status == .ok)
            #expect(list.contains("Zebracorner Oddity"))
            let targets = list.linkTargets
            #expect(targets.contains("/libraries/\(Self.encodedOddSlug)?status=pending&q=Zebracorner"), "its page, with the list it was opened from")
            // Its row's Approve, or Compare… when it may be a duplicate: either way encoded.
            #expect(
                targets.contains("/libraries/\(Self.encodedOddSlug)/decide")
                    || targets.contains { $0.hasPrefix("/libraries/\(Self.encodedOddSlug)?") && $0.hasSuffix("#compare") })
            #expect(!targets.contains { $0.contains(Self.oddSlug) }, "no link holds the raw slug")
            let dashboard = try await browser.get("/")
            #expect(dashboard.contains("Zebracorner Oddity"))
            #expect(dashboard.linkTargets.contains("/libraries/" + Self.encodedOddSlug))
            let detail = try await browser.get("/libraries/" + Self.encodedOddSlug)
            #expect(detail.status == .notFound)
            #expect(detail.contains("Request id"))
            let undecodable = try await browser.get("/libraries/%ZZ")
            #expect(undecodable.status == .notFound, "a segment that does not percent-decode names nothing")
        }
    }
}
