import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Pages read the mirror, never the backend: against the sandbox over loopback, with the
/// mirror filled once by `MirrorSync`'s own reads (`MirrorFiller`).
@Suite("Mirror: pages served from the mirror", .timeLimit(.minutes(3)))
struct MirrorPagesTests {
    /// Reads of the backend's rate-limited scopes among the calls the proxy forwarded.
    private func scopedReads(_ proxy: FaultingProxy) async -> [FaultingProxy.ForwardedCall] {
        await proxy.forwardedLog().filter { BackendScope.of($0) != nil }
    }

    /// The library slugs a list page links to, in order.
    private func listedSlugs(_ page: Page) -> [String] {
        page.html.components(separatedBy: "<tr").dropFirst().compactMap { row in
            // A row links its library with the list's filters after a `?`.
            row.range(of: #"<td><a href="/libraries/"#).map { String(row[$0.upperBound...].prefix { $0 != "\"" && $0 != "?" }) }
        }
    }

    /// The table row of `slug` on a list page ("" when it is not listed).
    private func row(of slug: String, in page: Page) -> String {
        page.html.components(separatedBy: "<tr").first { $0.contains(#"href="/libraries/\#(slug)""#) || $0.contains(#"href="/libraries/\#(slug)?"#) } ?? ""
    }

    /// The slugs the backend's own moderation list answers for `query`.
    private func backendSlugs(_ sandbox: SandboxFixture, query: String) async throws -> [String] {
        let token = try await sandbox.accessToken()
        let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation?\(query)", token: token).jsonObject()
        return ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
    }

    @Test(
        "with the mirror filled, browsing every page (dashboard, lists with filters, a library, reports, photos, statistics, audit, outbox) makes no backend read"
    )
    func noBackendReads() async throws {
        try await ConsoleFixture.withCountedConsole { browser, sandbox, proxy, _ in
            // setup: signed in (the fixture fills the mirror straight from the sandbox, not through the proxy)
            try await browser.signIn()
            let slug = try #require(try await backendSlugs(sandbox, query: "status=pending&page_size=1").first)
            let before = await scopedReads(proxy).count
            // act
            var statuses: [Int] = []
            for path in [
                "/", "/libraries", "/libraries?status=all&page=2&page_size=10", "/libraries?status=approved&country=DE",
                "/libraries?status=all&q=corner", "/libraries?status=all&source=openstreet", "/libraries/\(slug)",
                "/reports", "/reports?status=all&reason=damaged", "/photos", "/photos?status=all&page=2&page_size=10",
                "/statistics", "/statistics?days=90", "/audit", "/outbox",
            ] {
                statuses.append(Int(try await browser.get(path).status.code))
            }
            // check
            let reads = await scopedReads(proxy).dropFirst(before)
            #expect(statuses.allSatisfy { $0 == 200 }, "every page answered: \(statuses)")
            #expect(reads.isEmpty, "backend reads while browsing: \(reads.map { "\($0.path)?\($0.query)" })")
        }
    }

    @Test(
        "the library list's filters list what the backend's own filters list",
        arguments: [
            "status=pending&page_size=50", "status=all&q=corner&page_size=50", "status=approved&country=DE&page_size=50",
            "status=all&source=street&page_size=20&page=2", "status=rejected&page_size=10&page=1000",
            // as a browser's search form sends a typed space
            "status=all&q=Tiny+Library&page_size=50",
        ])
    func filtersMatchBackend(query: String) async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup
            try await browser.signIn()
            let expected = try await backendSlugs(sandbox, query: query)
            // act: in the backend's own order (the pending queue opens oldest first)
            let page = try await browser.get("/libraries?\(query)&order=newest")
            // check
            #expect(page.status == .ok)
            #expect(!expected.isEmpty, "the filter matches something, so the comparison means something")
            #expect(listedSlugs(page) == expected)
            if query.contains("+") {
                let spelled = try await backendSlugs(sandbox, query: query.replacingOccurrences(of: "+", with: "%20"))
                #expect(expected == spelled, "the backend reads + as a space")
            }
        }
    }

    @Test(
        "duplicates are found locally, approved or pending only: 10 m away is strong (no one-click Approve), a namesake 150 m away worth a look, one 11 km away only context"
    )
    func localDuplicates() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup: an anchor in the middle of the Atlantic, with planted neighbours (no country: the sea is in none)
            let (lat, lng) = (0.5, -30.0)
            func north(_ metres: Double) -> Double { lat + metres / GreatCircle.metresPerDegree }
            let recent = Date().addingTimeInterval(-3600)
            try await SandboxLibraryRows.insert(
                [
                    [
                        "id": 910_001, "slug": "dup-anchor", "name": "Ocean Corner Anchor", "city": "Testville", "country": "", "lat": lat, "lng": lng,
                        "status": "pending", "createdAt": recent, "createdById": 1,
                    ],
                    [
                        "id": 910_002, "slug": "dup-near-10", "name": "Near Ten", "city": "Testville", "country": "", "lat": north(10), "lng": lng,
                        "status": "approved", "createdAt": recent,
                    ],
                    [
                        "id": 910_003, "slug": "dup-far-60", "name": "Far Sixty", "city": "Testville", "country": "", "lat": north(60), "lng": lng,
                        "status": "approved", "createdAt": recent,
                    ],
                    [
                        "id": 910_004, "slug": "dup-same-name", "name": "ocean corner  ANCHOR!", "city": "Testville", "country": "", "lat": north(11_000),
                        "lng": lng, "status": "pending", "createdAt": recent,
                    ],
                    [
                        "id": 910_006, "slug": "dup-namesake-150", "name": "Ocean Corner Anchor", "city": "Testville", "country": "", "lat": north(-150),
                        "lng": lng, "status": "pending", "createdAt": recent,
                    ],
                    [
                        "id": 910_005, "slug": "dup-rejected-5", "name": "Rejected Five", "city": "Testville", "country": "", "lat": north(5), "lng": lng,
                        "status": "rejected", "rejectionReason": "Duplicate.", "createdAt": recent,
                    ],
                ], intoSandboxAt: directory.path("sandbox.sqlite"))
            try await browser.signIn()
            // act
            let detail = try await browser.get("/libraries/dup-anchor")
            let list = try await browser.get("/libraries?status=all&q=Testville&page_size=50")
            let bulkReject = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", list.csrfToken ?? ""), ("decision", "reject"), ("reason", "Duplicate."), ("item", "dup-anchor|pending|Ocean Corner Anchor"),
                ])
            let bulkApprove = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", list.csrfToken ?? ""), ("decision", "approve"), ("item", "dup-anchor|pending|Ocean Corner Anchor"),
                    ("item", "dup-namesake-150|pending|Ocean Corner Anchor"),
                ])
            let anchorAlone = try await browser.post(
                "/libraries/bulk", form: [("csrf", list.csrfToken ?? ""), ("decision", "approve"), ("item", "dup-anchor|pending|Ocean Corner Anchor")])
            // check: the backend's own radius search measures the planted pair on either side of 50 m
            let publicNear = try await sandbox.raw(.GET, "/api/v1/libraries/?lat=\(lat)&lng=\(lng)&radius_km=1").jsonObject()
            var backendMetres: [String: Double] = [:]
            for item in (publicNear?["items"] as? [[String: Any]]) ?? [] {
                guard let slug = item["slug"] as? String, let a = item["lat"] as? Double, let b = item["lng"] as? Double else { continue }
                backendMetres[slug] = GreatCircle.metres(lat, lng, a, b)
            }
            #expect(try #require(backendMetres["dup-near-10"]) <= 50)
            #expect(try #require(backendMetres["dup-far-60"]) > 50)
            #expect(detail.status == .ok)
            #expect(detail.contains("<strong>Likely duplicate.</strong> An approved or pending library is within 25 m"), "10 m away: strong")
            #expect(detail.contains(#"href="/libraries/dup-near-10""#) && detail.contains("within 50 m"))
            #expect(detail.contains(#"href="/libraries/dup-namesake-150""#) && detail.contains(#"<span class="flag">same name</span> 150 m away"#))
            let namesakes = try #require(detail.html.range(of: #"<p class="namesakes">"#).map { String(detail.html[$0.lowerBound...].prefix(600)) })
            #expect(namesakes.contains("Others with this name") && namesakes.contains(#"href="/libraries/dup-same-name""#), "\(namesakes)")
            #expect(detail.contains("Why this one needs a look") && detail.contains("“Near Ten” (approved) is 10 m away."))
            #expect(detail.contains("<dt>Their submissions</dt>"), "the submitter's record sits beside their name")
            #expect(detail.contains("<option>Duplicate of “Near Ten”, already on the map 10 m away.</option>"), "the preset names what it duplicates")
            // The map shows every library within 500 m; only the comparison and the map's marks say "duplicate".
            let (beforeMap, map) = try #require(
                detail.html.range(of: #"<figure class="neighbourhood""#).map { (detail.html[..<$0.lowerBound], detail.html[$0.lowerBound...]) })
            #expect(!beforeMap.contains("dup-far-60"), "60 m away with another name is no duplicate")
            #expect(!beforeMap.contains("dup-rejected-5"), "a rejected library duplicates nothing")
            func mapLine(_ slug: String) -> String {
                map.components(separatedBy: "<li ").dropFirst().first { $0.contains(#"href="/libraries/\#(slug)""#) } ?? ""
            }
            #expect(mapLine("dup-far-60").contains("60 m") && !mapLine("dup-far-60").contains(" duplicate</span>"))
            #expect(mapLine("dup-rejected-5").contains("rejected") && !mapLine("dup-rejected-5").contains(" duplicate</span>"))
            // 10 m is within the strong distance: the map's mark is as strong as the reason above it.
            #expect(mapLine("dup-near-10").contains(#"<span class="flag concern concern-strong">likely duplicate</span>"#), "\(mapLine("dup-near-10"))")
            let anchorRow = row(of: "dup-anchor", in: list)
            #expect(
                anchorRow.contains(
                    #"concern-strong" title="Likely duplicate: “Near Ten” (approved) is 10 m away.">likely duplicate, 10 m<span class="visually-hidden"> (Likely duplicate): “Near Ten” (approved) is 10 m away.</span></span>"#
                ), "the evidence in the badge's title and read out with it: \(anchorRow)")
            #expect(anchorRow.contains(">Compare…</a>") && !anchorRow.contains(#"name="quick""#), "a strong reason takes one-click Approve away")
            let namesakeRow = row(of: "dup-namesake-150", in: list)
            #expect(
                namesakeRow.contains(#"concern-worth-a-look""#) && namesakeRow.contains(">same name 150 m away<span class=\"visually-hidden\">"),
                "\(namesakeRow)")
            #expect(namesakeRow.contains(#"name="quick""#), "worth a look keeps one-click Approve")
            #expect(!row(of: "dup-same-name", in: list).contains("duplicate?"), "a namesake 11 km away is no reason")
            #expect(bulkReject.status == .ok)
            #expect(bulkReject.contains(">likely duplicate, 10 m<span class=\"visually-hidden\">"), "the bulk confirmation flags it: \(bulkReject)")
            // Approving in bulk leaves out a library with a strong reason, as its row's one-click Approve does.
            #expect(bulkApprove.status == .ok)
            #expect(bulkApprove.contains("<h1>Approve 1 library?</h1>"), "\(bulkApprove)")
            #expect(bulkApprove.contains(#"<li><a href="/libraries/dup-anchor" dir="auto">Ocean Corner Anchor</a>: “Near Ten” (approved) is 10 m away."#))
            #expect(!bulkApprove.contains(#"name="item" value="dup-anchor"#) && bulkApprove.contains(#"name="item" value="dup-namesake-150|pending|"#))
            #expect(anchorAlone.status == .unprocessableContent)
            #expect(anchorAlone.contains("has a strong reason to look first, so it is not approved in bulk"), "\(anchorAlone)")
            // The confirmation form, edited to put the library back, is checked again when confirmed.
            let confirmed = try await browser.post(
                "/libraries/bulk/confirm",
                form: [
                    ("csrf", list.csrfToken ?? ""), ("key", UUID().uuidString), ("decision", "approve"), ("item", "dup-anchor|pending|Ocean Corner Anchor"),
                    ("item", "dup-namesake-150|pending|Ocean Corner Anchor"),
                ])
            #expect(confirmed.status == .seeOther)
            let after = try await browser.get("/libraries?status=all&q=Testville&page_size=50")
            #expect(
                after.contains("1 decision recorded.") && after.contains("Not approved: “Ocean Corner Anchor”, with a strong reason to look first"), "\(after)")
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            #expect(try await store.action(id: 1)?.targetKey == "dup-namesake-150", "the library without a strong reason is decided")
            #expect(try await store.action(id: 2) == nil, "and only that one")
        }
    }

    @Test("a bulk form names each library once, by the name the mirror knows, and one naming a library the mirror never saw is refused, nothing recorded")
    func bulkFormsCheckedAgainstTheMirror() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup
            try await browser.signIn()
            let slugs = try await backendSlugs(sandbox, query: "status=pending&page_size=2")
            try #require(slugs.count == 2)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let real = try #require(try await store.mirroredLibrary(slug: slugs[0])).name
            let list = try await browser.get("/libraries")
            let csrf = list.csrfToken ?? ""
            // act: the first library twice, once under a made-up name; then a library nobody has
            let twice = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", csrf), ("decision", "reject"), ("reason", "Duplicate."), ("item", "\(slugs[0])|pending|Made-up name"),
                    ("item", "\(slugs[0])|pending|Made-up name"), ("item", "\(slugs[1])|pending|"),
                ])
            let unknown = try await browser.post(
                "/libraries/bulk",
                form: [
                    ("csrf", csrf), ("decision", "reject"), ("reason", "Duplicate."), ("item", "\(slugs[1])|pending|x"), ("item", "no-such-library|pending|x"),
                ])
            let confirmedUnknown = try await browser.post(
                "/libraries/bulk/confirm",
                form: [("csrf", csrf), ("key", UUID().uuidString), ("decision", "reject"), ("reason", "Duplicate."), ("item", "no-such-library|pending|x")])
            // check
            #expect(twice.status == .ok)
            #expect(twice.contains("<h1>Reject 2 libraries?</h1>"), "each library once")
            #expect(twice.html.components(separatedBy: #"name="item" value="\#(slugs[0])|"#).count == 2)
            #expect(twice.contains(ConsoleHTMLContentType.escape(LibraryText.displayName(real))) && !twice.contains("Made-up name"), "the mirror's name")
            #expect(unknown.status == .unprocessableContent)
            #expect(unknown.contains("The console knows no library “no-such-library”, so nothing was recorded."), "\(unknown)")
            #expect(confirmedUnknown.status == .seeOther)
            let after = try await browser.get("/libraries")
            #expect(after.contains("The console knows no library “no-such-library”") && after.contains("Nothing was recorded."))
            #expect(try await store.action(id: 1) == nil, "no decision recorded")
        }
    }

    @Test("the photos page shows each library's current photo from the mirror, and the reports page the mirrored reports")
    func photosAndReports() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup
            try await browser.signIn()
            let token = try await sandbox.accessToken()
            let photos = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/photos?status=pending&page_size=50", token: token).jsonObject()
            let photo = try #require((photos?["items"] as? [[String: Any]])?.first)
            let librarySlug = try #require((photo["library"] as? [String: Any])?["slug"] as? String)
            let library = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(librarySlug)", token: token).jsonObject()
            let currentPhoto = try #require(library?["photo_url"] as? String)
            let reports = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/reports?status=open&page_size=50", token: token).jsonObject()
            let openCount = try #require((reports?["pagination"] as? [String: Any])?["total"] as? Int)
            // act
            let photosPage = try await browser.get("/photos?page_size=50")
            let reportsPage = try await browser.get("/reports")
            // check
            #expect(photosPage.status == .ok && reportsPage.status == .ok)
            #expect(!currentPhoto.isEmpty && photosPage.contains(currentPhoto), "the library's current photo beside the proposed one")
            #expect(reportsPage.contains("· \(openCount) item"), "the mirrored open reports: \(reportsPage)")
        }
    }

    @Test("an empty mirror (first start, nobody signed in before) says the console is still loading, with 200")
    func emptyMirror() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, _, _ in
            // setup
            try await browser.signIn()
            // act
            let pages = [try await browser.get("/"), try await browser.get("/libraries")]
            // check
            for page in pages {
                #expect(page.status == .ok)
                #expect(page.contains("The console is still loading Book Corners&#39; data"), "\(page)")
                #expect(!page.contains("Backend problem."))
                #expect(!page.contains("No libraries match these filters."), "no claim that the queue is empty")
            }
            let dashboard = pages[0]
            #expect(!dashboard.contains("Nothing waiting."), "no queue card claims to be empty")
            #expect(dashboard.html.components(separatedBy: "Not loaded yet.").count - 1 == 3, "each card says it is not loaded")
            #expect(dashboard.contains(#"<p class="backend-status loading">"#), "no green light before the first read")
        }
    }

    @Test("a list whose rows are mirrored but whose summary is not yet does not say it is still loading")
    func listBeforeSummary() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: the lists arrived, the summary (another scope) not yet
            try await browser.signIn()
            let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            try await database.write { db in try db.execute(sql: "DELETE FROM mirrorSummary") }
            try database.close()
            // act
            let list = try await browser.get("/libraries")
            // check
            #expect(list.status == .ok)
            #expect(list.contains("PENDING") || list.contains("pending"), "rows are shown")
            #expect(!list.contains("still loading"), "\(list)")
            #expect(!list.contains("not loaded yet"))
        }
    }

    @Test("the console's own applied decision shows on the lists at once, before any read confirms it")
    func appliedDecisionShowsAtOnce() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup: the filler reads nothing more after its first fill, so only the decision can change the mirror
            try await browser.signIn()
            let token = try await sandbox.accessToken()
            let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=50", token: token).jsonObject()
            // A plainly named one, so a text search finds it among the approved.
            let first = try #require(
                (list?["items"] as? [[String: Any]])?.first { item in
                    let name = item["name"] as? String ?? ""
                    return name.count > 5 && name.allSatisfy { $0.isLetter || $0 == " " }
                })
            let slug = try #require(first["slug"] as? String)
            let name = try #require((first["name"] as? String)?.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let detail = try await browser.get("/libraries/\(slug)")
            let key = try #require(detail.field("key", after: "/libraries/\(slug)/decide"))
            // act
            let decided = try await browser.post(
                "/libraries/\(slug)/decide", form: [("csrf", detail.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")])
            let pending = try await browser.get("/libraries?status=pending&order=newest&page_size=50")
            let approved = try await browser.get("/libraries?status=approved&q=\(name)&page_size=50")
            let page = try await browser.get("/libraries/\(slug)")
            // check
            #expect(decided.status == .seeOther)
            #expect(row(of: slug, in: pending).contains(#"class="decided""#), "kept in its place on the pending list, decided")
            #expect(row(of: slug, in: pending).contains(#"<span class="outcome outcome-applied" dir="auto">Approved</span>"#))
            #expect(!row(of: slug, in: pending).contains("name=\"quick\""), "no second approval offered")
            #expect(row(of: slug, in: approved).contains("status-approved"), "listed as approved: \(approved)")
            #expect(page.contains(#"<input type="hidden" name="seen" value="approved">"#), "its page shows it approved")
        }
    }

    @Test("a rejection the console applied shows on its row as done but never in green, and its flash is not green either")
    func appliedRejectionIsNotGreen() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let before = try await browser.get("/libraries?status=pending&page_size=50")
            let slug = try #require(before.html.firstMatch(of: #/ id="library-([^"]+)"/#).map { String($0.1) }, "\(before)")
            let detail = try await browser.get("/libraries/\(slug)")
            let key = try #require(detail.field("key", after: "class=\"reject-form\""))
            // act
            let decided = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", detail.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", "Not a library."),
                    ("confirmed", "1"),
                ])
            let pending = try await browser.get("/libraries?status=pending&page_size=50")
            let css = try await browser.get("/static/console.css")
            // check
            #expect(decided.status == .seeOther)
            #expect(
                row(of: slug, in: pending).contains(#"<span class="outcome outcome-applied-refusal" dir="auto">Rejected</span>"#),
                "\(row(of: slug, in: pending))")
            // The colours as each theme names them: `var(--x)` read from the light theme's and the dark theme's own values.
            let lines = css.html.components(separatedBy: "\n")
            func value(of variable: String, in theme: ArraySlice<String>) -> String {
                theme.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(variable):") }.map { String($0.split(separator: ":", maxSplits: 1)[1]) }
                    ?? ""
            }
            let light = lines.prefix { !$0.contains("prefers-color-scheme: dark") }
            let dark = lines.drop { !$0.contains("prefers-color-scheme: dark") }
            for selector in [".outcome-applied-refusal {", ".flash {"] {
                let stated = try #require(lines.first { $0.hasPrefix(selector) }, "\(selector) in the stylesheet")
                for theme in [light, dark] {
                    let rule = stated.replacing(/var\((--[a-z-]+)\)/) { value(of: String($0.1), in: theme) }
                    let colours = rule.matches(of: /#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})/).map { match in
                        (Int(match.1, radix: 16) ?? 0, Int(match.2, radix: 16) ?? 0, Int(match.3, radix: 16) ?? 0)
                    }
                    #expect(colours.count >= 2, "\(rule)")
                    #expect(colours.allSatisfy { red, green, blue in green <= max(red, blue) }, "no colour of \(rule) leans green")
                }
            }
        }
    }
}
