import BookCornersAPI
import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Decisions: recorded first, sent once, audited and notified", .timeLimit(.minutes(3)))
struct DecisionTests {
    /// The console's own database, opened for inspection.
    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    private func pendingSlugs(_ sandbox: SandboxFixture, count: Int, withSubmitter: Bool = true) async throws -> [(slug: String, submitter: Int?)] {
        let token = try await sandbox.accessToken()
        var found: [(String, Int?)] = []
        for page in 1...2 {
            let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=50&page=\(page)", token: token).jsonObject()
            for item in (list?["items"] as? [[String: Any]]) ?? [] {
                let submitter = (item["created_by"] as? [String: Any])?["id"] as? Int
                if !withSubmitter || submitter != nil, let slug = item["slug"] as? String { found.append((slug, submitter)) }
            }
        }
        return Array(found.prefix(count))
    }

    private func backendStatus(_ sandbox: SandboxFixture, slug: String) async throws -> String? {
        try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: try await sandbox.accessToken()).jsonObject()?["status"] as? String
    }

    @Test("approving from the detail page applies it, audits it and notifies the submitter; the same form twice is one decision")
    func approveOnce() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            try await browser.signIn()
            let slug = try #require(try await pendingSlugs(sandbox, count: 1).first?.slug)
            let page = try await browser.get("/libraries/\(slug)")
            let key = try #require(page.field("key", after: "/libraries/\(slug)/decide"))
            let form = [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")]
            let first = try await browser.post("/libraries/\(slug)/decide", form: form)
            #expect(first.status == .seeOther && first.location == "/libraries/\(slug)")
            #expect(try await browser.get("/libraries/\(slug)").contains("Approved: "))
            let again = try await browser.post("/libraries/\(slug)/decide", form: form)
            #expect(again.status == .seeOther)
            #expect(try await backendStatus(sandbox, slug: slug) == "approved")
            let store = try store(directory)
            let decisions = try await store.auditEntries().filter { $0.action == "library.approve" }
            #expect(decisions.count == 1, "one audit entry for one decision")
            #expect(decisions.first?.outcome == .applied && decisions.first?.statusBefore == "pending")
            let messages = try await store.outboxMessages()
            #expect(messages.count == 1 && messages.first?.eventType == .libraryApproved)
            #expect(messages.first?.sentByBookCorners == true, "Book Corners pushes a pending library's approval itself: ours is recorded only")
            let payload = try #require(messages.first?.payload)
            #expect(payload.contains(#""type":"library.approved""#) && payload.contains(#""library_id":"#))
            #expect(messages.first?.headers.contains(#""apns-push-type":"alert""#) == true)
            await #expect(try store.verifyAuditChain() == .intact(entries: try store.auditEntryCount(), head: store.auditEntries(limit: 1).first?.hash ?? ""))
        }
    }

    @Test("rejecting needs a reason; the reason reaches the backend and the submitter's message")
    func rejectWithReason() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            try await browser.signIn()
            let slug = try #require(try await pendingSlugs(sandbox, count: 1).first?.slug)
            let page = try await browser.get("/libraries/\(slug)")
            let key = try #require(page.field("key", after: "class=\"reject-form\""))
            let missing = try await browser.post(
                "/libraries/\(slug)/decide", form: [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "reject")])
            #expect(missing.status == .unprocessableContent, "shown again on the library's page (issue 21)")
            #expect(missing.contains("A rejection needs a reason"))
            let reason = "Duplicate of a library already on the map. <b>\"Quoted\"</b> ‏עברית 📚"
            let confirm = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", reason),
                ])
            #expect(confirm.status == .ok && confirm.contains("<h1>Reject <span dir=\"auto\""), "a rejection is confirmed first, naming the library")
            #expect(confirm.contains("&lt;b&gt;&quot;Quoted&quot;&lt;/b&gt;"))
            await #expect(try store(directory).auditEntries().allSatisfy { $0.targetKind == "session" }, "nothing recorded before confirming")
            try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "reject"), ("reason", reason), ("confirmed", "1"),
                ])
            let token = try await sandbox.accessToken()
            let library = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: token).jsonObject()
            #expect(library?["status"] as? String == "rejected")
            #expect(library?["rejection_reason"] as? String == reason)
            let message = try await #require(try store(directory).outboxMessages().first)
            #expect(message.eventType == .libraryRejected)
            let payload = try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any]
            let body = ((payload?["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String
            #expect(body?.contains(reason) == true)
        }
    }

    @Test(
        "a decision sent again from a second tab after it applied says the moderator had already made it; one beaten by a colleague in the console names them")
    func conflictNamesWhoDecided() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup: two tabs on one library (two forms, two keys), and a second library open before a colleague decides it
            try await browser.signIn()
            let slugs = try await pendingSlugs(sandbox, count: 2).map(\.slug)
            try #require(slugs.count == 2)
            // Two addresses: the same one twice within a moment is answered from the page copy, its key and all.
            let firstTab = try await browser.get("/libraries/\(slugs[0])")
            let secondTab = try await browser.get("/libraries/\(slugs[0])?status=pending")
            try #require(firstTab.field("key", after: "/decide") != secondTab.field("key", after: "/decide"))
            let other = try await browser.get("/libraries/\(slugs[1])")
            func approve(_ slug: String, from page: Page, csrf: String? = nil) async throws {
                try await browser.post(
                    "/libraries/\(slug)/decide",
                    form: [
                        ("csrf", csrf ?? page.csrfToken ?? ""), ("key", page.field("key", after: "/decide") ?? ""), ("seen", "pending"),
                        ("decision", "approve"),
                    ])
            }
            // act: the first tab's approval applies; then the second tab's
            try await approve(slugs[0], from: firstTab)
            try #require(try await backendStatus(sandbox, slug: slugs[0]) == "approved")
            try await approve(slugs[0], from: secondTab)
            let afterSecondTab = try await browser.get("/libraries/\(slugs[0])")
            // act: maria approves the other library in the console, then staff's old page of it is sent
            try await browser.post("/sign-out", form: [("csrf", afterSecondTab.csrfToken ?? "")])
            try await browser.signIn("maria")
            let mariasPage = try await browser.get("/libraries/\(slugs[1])")
            try await approve(slugs[1], from: mariasPage)
            let mariasAfter = try await browser.get("/libraries/\(slugs[1])")
            try await browser.post("/sign-out", form: [("csrf", mariasAfter.csrfToken ?? "")])
            try await browser.signIn()
            let fresh = try await browser.get("/libraries")
            try await approve(slugs[1], from: other, csrf: fresh.csrfToken)
            let afterOld = try await browser.get("/libraries/\(slugs[1])")
            // check
            #expect(afterSecondTab.contains("Not sent: you had already made this approved, at "), "\(afterSecondTab)")
            #expect(!afterSecondTab.contains("someone else"))
            #expect(afterOld.contains("Not sent: maria&#39;s decision reached Book Corners first and changed this to approved at "), "\(afterOld)")
        }
    }

    @Test("if someone else decided first, nothing is sent, the moderator is told, and the page shows the new status, not the cached one")
    func conflict() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup: the detail page is read (and cached) while the library is pending
            try await browser.signIn()
            let slug = try #require(try await pendingSlugs(sandbox, count: 1).first?.slug)
            let page = try await browser.get("/libraries/\(slug)")
            #expect(page.contains(#"<span class="status status-pending">pending</span>"#))
            // Another moderator (say, in the Django admin) rejects it meanwhile.
            let other = try await sandbox.accessToken(username: "maria")
            _ = try await sandbox.raw(
                .PATCH, "/api/v1/libraries/moderation/\(slug)", token: other, json: #"{"status": "rejected", "rejection_reason": "By Maria."}"#)
            // act
            try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", page.csrfToken ?? ""), ("key", page.field("key", after: "/decide") ?? ""), ("seen", "pending"), ("decision", "approve"),
                ])
            let after = try await browser.get("/libraries/\(slug)")
            // check
            #expect(after.contains("someone else changed this to rejected"))
            #expect(after.contains(#"<span class="status status-rejected">rejected</span>"#), "\(after)")
            #expect(!after.contains(#"<span class="status status-pending">pending</span>"#))
            #expect(try await backendStatus(sandbox, slug: slug) == "rejected", "our approval was not sent")
            let later = try await browser.get("/reports")
            #expect(later.contains(#"<span class="status status-conflict">Not sent</span>"#), "the panel keeps telling them")
            let store = try store(directory)
            await #expect(try store.outboxMessages().isEmpty)
            await #expect(try store.auditEntries().first?.outcome == .conflict)
            // The check that found the conflict also saw a change made outside the console: it is
            // audited as such (once, before the conflict), and the page shows the backend's whole record.
            let observed = try await store.auditEntries(limit: 100).filter { $0.outcome == .observed && $0.targetSlug == slug }
            #expect(observed.map(\.action) == ["observed.library.rejected"], "\(observed)")
            #expect(observed.first.map { $0.statusBefore == "pending" && $0.statusAfter == "rejected" } == true)
            #expect(after.contains("By Maria."), "the reason Maria gave is on the page at once")
        }
    }

    @Test("the bulk confirmation counts in words: one library, two libraries")
    func bulkHeadingCounts() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, _ in
            // setup
            try await browser.signIn()
            let targets = try await pendingSlugs(sandbox, count: 2)
            let csrf = try await browser.get("/libraries").csrfToken ?? ""
            // act
            let one = try await browser.post(
                "/libraries/bulk", form: [("csrf", csrf), ("decision", "reject"), ("reason", "Not a library."), ("item", "\(targets[0].slug)|pending|Name")])
            let two = try await browser.post(
                "/libraries/bulk",
                form: [("csrf", csrf), ("decision", "approve")]
                    + targets.map { ("item", "\($0.slug)|pending|Name") })
            // check
            #expect(one.contains("<h1>Reject 1 library?</h1>"), "\(one)")
            #expect(two.contains("<h1>Approve 2 libraries?</h1>"), "\(two)")
        }
    }

    @Test("bulk: 30 approvals under a 10-per-window limit finish in 3 windows, none lost, none doubled")
    func bulkUnderRateLimit() async throws {
        let limits = RateLimitPolicy(windowSeconds: 3, reads: 10_000, writes: 10, logins: 100, refreshes: 100)
        try await ConsoleFixture.withConsole(rateLimits: limits) { browser, sandbox, directory in
            try await browser.signIn()
            let store = try store(directory)
            // Bulk approval leaves out libraries with a strong reason: thirty without one.
            var targets: [(slug: String, submitter: Int?)] = []
            for candidate in try await pendingSlugs(sandbox, count: 50, withSubmitter: false) where targets.count < 30 {
                guard let library = try await store.mirroredLibrary(slug: candidate.slug) else { continue }
                let concerns = try await LibraryConcerns.of([library], in: store)[library.id] ?? []
                if !concerns.contains(where: { $0.strength == .strong }) { targets.append(candidate) }
            }
            try #require(targets.count == 30)
            let review = try await browser.post(
                "/libraries/bulk",
                form: [("csrf", try await browser.get("/libraries").csrfToken ?? ""), ("decision", "approve")]
                    + targets.map { ("item", "\($0.slug)|pending|Name") })
            #expect(review.status == .ok)
            #expect(review.contains("Approve 30 libraries"))
            let key = try #require(review.field("key"))
            let confirm =
                [("csrf", review.field("csrf") ?? ""), ("key", key), ("decision", "approve"), ("reason", "")]
                + targets.map { ("item", "\($0.slug)|pending|Name") }
            let started = Date()
            try await browser.post("/libraries/bulk/confirm", form: confirm)
            try await browser.post("/libraries/bulk/confirm", form: confirm)  // a double click records nothing more
            while try await store.auditEntries(limit: 200).filter({ $0.action == "library.approve" }).count < 30, Date().timeIntervalSince(started) < 30 {
                try await Task.sleep(for: .milliseconds(200))
            }
            let elapsed = Date().timeIntervalSince(started)
            let approvals = try await store.auditEntries(limit: 200).filter { $0.action == "library.approve" }
            #expect(approvals.count == 30)
            #expect(Set(approvals.map(\.targetSlug)).count == 30)
            #expect(approvals.allSatisfy { $0.outcome == .applied })
            // Ten per window (the sandbox enforces it: every approval applied means none was lost to a
            // 429). Three or four windows unloaded, a few more when a loaded machine (the full suite on
            // two cores) runs the queue late, but never waiting out many windows. An entry's time is
            // when the answer came back, so one window's recorded count may pass the limit.
            let perWindow = Dictionary(grouping: approvals) { Int($0.recordedAt.timeIntervalSince1970) / 3 }.mapValues(\.count)
            #expect(elapsed < 3 * 3 + 10)
            #expect(perWindow.count <= 6, "spread over the windows the limit needs, not many more: \(perWindow)")
            await #expect(try store.outboxMessages(limit: 200).count == targets.filter { $0.submitter != nil }.count)
            await #expect(try store.outboxMessages(limit: 200).allSatisfy(\.sentByBookCorners), "approvals from pending: Book Corners pushes them itself")
            for target in targets.prefix(5) { #expect(try await backendStatus(sandbox, slug: target.slug) == "approved") }
            guard case .intact = try await store.verifyAuditChain() else { Issue.record("chain broken"); return }
        }
    }

    @Test("reports resolve and photos approve, each notifying who sent them")
    func reportsAndPhotos() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let reports = try await browser.get("/reports")
            let reportID = try #require(reports.html.range(of: #"action="/reports/"#).map { String(reports.html[$0.upperBound...].prefix { $0.isNumber }) })
            try await browser.post(
                "/reports/\(reportID)/decide",
                form: [
                    ("csrf", reports.csrfToken ?? ""), ("key", reports.field("key", after: "/reports/\(reportID)/decide") ?? ""), ("seen", "open"),
                    ("decision", "resolve"),
                ])
            let photos = try await browser.get("/photos")
            // A card whose photo has a submitter, so that someone is notified.
            let card = try #require(photos.html.components(separatedBy: #"class="photo-card""#).dropFirst().first { !$0.contains("By anonymous") })
            let photoID = try #require(card.range(of: #"action="/photos/"#).map { String(card[$0.upperBound...].prefix { $0.isNumber }) })
            try await browser.post(
                "/photos/\(photoID)/decide",
                form: [
                    ("csrf", photos.csrfToken ?? ""), ("key", photos.field("key", after: "/photos/\(photoID)/decide") ?? ""), ("seen", "pending"),
                    ("decision", "approve"),
                ])
            let store = try store(directory)
            let entries = try await store.auditEntries()
            #expect(entries.contains { $0.action == "report.resolve" && $0.outcome == .applied })
            #expect(entries.contains { $0.action == "photo.approve" && $0.outcome == .applied })
            let outbox = try await browser.get("/outbox")
            #expect(outbox.status == .ok)
            #expect(outbox.contains(#"">Photo approved</a>"#), "listed as a message, in words, not only as a filter")
            let types = try await store.outboxMessages().map(\.eventType)
            #expect(types.contains(.photoApproved))
        }
    }

    @Test("with the backend down, decisions wait; when it is back, they complete")
    func waitsForBackend() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let sandboxDirectory = try TemporaryDirectory()
        defer { sandboxDirectory.remove() }
        let database = sandboxDirectory.path("sandbox.sqlite")
        let port = try FreePort.find()
        let app = try await buildConsoleApplication(
            configuration: ConsoleFixture.configuration(backendURL: URL(string: "http://127.0.0.1:\(port)/api/v1/")!, directory: directory),
            logger: ConsoleFixture.quietLogger)
        let backendURL = try #require(URL(string: "http://127.0.0.1:\(port)/api/v1/"))
        try await app.test(.live) { client in
            try await ConsoleFixture.withMirror(.filled, directory: directory, backendURL: backendURL) { fill in
                let browser = Browser(client: client, afterSignIn: fill)
                var slug = ""
                var form: [(String, String)] = []
                try await SandboxFixture.run(databasePath: database, port: port) { sandbox in
                    try await browser.signIn()
                    slug = try #require(try await pendingSlugs(sandbox, count: 1).first?.slug)
                    let page = try await browser.get("/libraries/\(slug)")
                    form = [("csrf", page.csrfToken ?? ""), ("key", page.field("key", after: "/decide") ?? ""), ("seen", "pending"), ("decision", "approve")]
                }
                try await browser.post("/libraries/\(slug)/decide", form: form)
                let waiting = try await browser.get("/libraries")
                #expect(waiting.contains("Pending actions"))
                #expect(waiting.contains(#"Approve <a href="/libraries/\#(slug)""#), "in words, the library linked (issue 21)")
                let store = try store(directory)
                try await SandboxFixture.run(databasePath: database, port: port) { sandbox in
                    let deadline = Date().addingTimeInterval(20)
                    while try await store.auditEntries().first(where: { $0.action == "library.approve" }) == nil, Date() < deadline {
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    #expect(try await backendStatus(sandbox, slug: slug) == "approved")
                }
                await #expect(try store.auditEntries().filter { $0.action == "library.approve" }.count == 1)
            }
        }
    }

    @Test("a list row approves in one click and returns to the same filtered list")
    func rowApprove() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            try await browser.signIn()
            let list = try await browser.get("/libraries?q=Berlin&page_size=50")
            // The first row with a one-click Approve (a possible duplicate offers Compare… instead).
            let slug = try #require(list.html.firstMatch(of: #/formaction="/libraries/([^/"]+)/decide"/#).map { String($0.1) })
            let seen = try #require(list.field("quick", after: #"formaction="/libraries/\#(slug)/decide""#))
            let back = (list.field("back") ?? "").replacingOccurrences(of: "&amp;", with: "&")
            // What the browser sends when that row's Approve is clicked: the list form plus quick=<status>.
            let answer = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", list.csrfToken ?? ""), ("key", list.field("key") ?? ""), ("back", back), ("decision", "approve"), ("quick", seen),
                ])
            #expect(answer.location == "/libraries?q=Berlin&page_size=50#library-\(slug)", "the same list, at the row")
            #expect(try await backendStatus(sandbox, slug: slug) == "approved")
            await #expect(try store(directory).auditEntries().contains { $0.action == "library.approve" && $0.targetSlug == slug })
        }
    }

    @Test("a possible duplicate's row has no one-click Approve, and one sent anyway is not recorded: its page opens at the candidates")
    func duplicateNotApprovedInOneClick() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            try await browser.signIn()
            let list = try await browser.get("/libraries?page_size=50")
            // A row offering Compare… in place of Approve.
            let slug = try #require(
                list.html.firstMatch(of: #/href="/libraries/([^"?#]+)[^"]*#compare" class="button small" data-key="approve"/#).map { String($0.1) },
                "the list has a possible duplicate")
            let answer = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [("csrf", list.csrfToken ?? ""), ("key", list.field("key") ?? ""), ("back", "/libraries?page_size=50"), ("quick", "pending")])
            #expect(answer.location == "/libraries/\(slug)#compare", "\(answer)")
            let page = try await browser.get(try #require(answer.location))
            #expect(page.contains("may be a duplicate. Compare it with the libraries beside it, then decide here."))
            #expect(try await store(directory).auditEntries().allSatisfy { $0.targetSlug != slug }, "nothing recorded")
            #expect(try await backendStatus(sandbox, slug: slug) == "pending")
        }
    }

    @Test("bad decision forms get clear errors and record nothing")
    func badForms() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            try await browser.signIn()
            let slug = try #require(try await pendingSlugs(sandbox, count: 1).first?.slug)
            let page = try await browser.get("/libraries/\(slug)")
            let csrf = page.csrfToken ?? ""
            let forged = try await browser.post(
                "/libraries/\(slug)/decide", form: [("csrf", "forged"), ("key", "k1"), ("seen", "pending"), ("decision", "approve")])
            #expect(forged.status == .forbidden)
            let bogus = try await browser.post(
                "/libraries/\(slug)/decide", form: [("csrf", csrf), ("key", "k2"), ("seen", "pending"), ("decision", "<script>")])
            #expect(bogus.status == .badRequest && bogus.contains("Choose one of: approve, pending, reject"))
            let noKey = try await browser.post("/libraries/\(slug)/decide", form: [("csrf", csrf), ("seen", "pending"), ("decision", "approve")])
            #expect(noKey.status == .badRequest)
            let badReport = try await browser.post("/reports/abc/decide", form: [("csrf", csrf), ("key", "k3"), ("seen", "open"), ("decision", "resolve")])
            #expect(badReport.status == .notFound)
            let long = try await browser.post(
                "/libraries/\(slug)/decide",
                form: [
                    ("csrf", csrf), ("key", "k4"), ("seen", "pending"), ("decision", "reject"), ("reason", String(repeating: "x", count: 2001)),
                ])
            #expect(long.status == .unprocessableContent && long.contains("at most 2000"))
            let empty = try await browser.post("/libraries/bulk", form: [("csrf", csrf), ("decision", "approve")])
            #expect(empty.status == .unprocessableContent && empty.contains("Select at least one library"))
            await #expect(try store(directory).auditEntries().allSatisfy { $0.targetKind == "session" }, "nothing was decided")
        }
    }

    @Test("a payload never exceeds 4096 bytes: the body is cut, the JSON stays whole")
    func payloadLimit() throws {
        let push = PushNotification(
            title: "Your library was not approved", body: String(repeating: "Ünïcödé 📚 ", count: 600), type: .libraryRejected, ids: ["library_id": 42])
        let json = push.payloadJSON()
        #expect(json.utf8.count <= 4096)
        #expect(json.utf8.count > 4000, "cut no more than needed")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((object["data"] as? [String: Any])?["library_id"] as? Int == 42)
        let body = ((object["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String
        #expect(body?.hasSuffix("…") == true, "\(json.suffix(200))")
    }
}
