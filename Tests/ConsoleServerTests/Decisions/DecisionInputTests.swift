import Foundation
import GRDB
import Sandbox
import TestSupport
import Testing

/// What a decision form may name and reuse: only real ids and slugs, and one key per decision.
@Suite("Decisions: ids and idempotency keys", .timeLimit(.minutes(3)))
struct DecisionInputTests {
    /// How many actions the console has recorded, read straight from its database file.
    private func recordedActions(_ directory: TemporaryDirectory) throws -> Int {
        let database = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
        return try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM action") ?? 0 }
    }

    private func backendStatus(_ sandbox: SandboxFixture, _ path: String) async throws -> String? {
        try await sandbox.raw(.GET, path, token: try await sandbox.accessToken()).jsonObject()?["status"] as? String
    }

    @Test("ids that are not positive decimal integers, and slugs with characters no slug has, are 404 and record nothing")
    func notIds() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let csrf = try await browser.get("/reports").csrfToken ?? ""
            let paths = [
                "/reports/-1/decide", "/reports/0/decide", "/reports/+1/decide", "/reports/007/decide", "/photos/-1/decide",
                "/photos/0/decide", "/reports/99999999999999999999/decide", "/libraries/no%20such%3Cslug%3E/decide", "/libraries/..%2F/decide",
            ]
            for (index, path) in paths.enumerated() {
                // act
                let answer = try await browser.post(
                    path,
                    form: [
                        ("csrf", csrf), ("key", "bad-id-\(index)"), ("seen", "open"),
                        ("decision", path.hasPrefix("/libraries") ? "approve" : path.hasPrefix("/photos") ? "approve" : "resolve"),
                    ])
                // check
                #expect(answer.status == .notFound, "\(path): \(answer)")
            }
            #expect(try recordedActions(directory) == 0, "nothing was recorded")
        }
    }

    @Test("a report or photo the mirror has never held is refused when posted, in words, the typed reason given back; nothing is recorded")
    func neverMirrored() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup
            try await browser.signIn()
            let csrf = try await browser.get("/photos").csrfToken ?? ""
            // act
            let photo = try await browser.post(
                "/photos/987654/decide",
                form: [
                    ("csrf", csrf), ("key", "never-1"), ("seen", "pending"), ("decision", "reject"), ("reason", "Too dark to see the shelf"),
                ])
            let report = try await browser.post(
                "/reports/987654/decide",
                form: [
                    ("csrf", csrf), ("key", "never-2"), ("seen", "open"), ("decision", "resolve"),
                ])
            // check
            #expect(photo.status == .badRequest, "\(photo)")
            #expect(photo.contains("never seen a photo numbered 987654"), "\(photo)")
            #expect(photo.contains("Too dark to see the shelf"), "what was typed is given back")
            #expect(report.status == .badRequest, "\(report)")
            #expect(report.contains("never seen a report numbered 987654"), "\(report)")
            #expect(try recordedActions(directory) == 0, "nothing was recorded")
        }
    }

    @Test("a library address with characters no slug has is the 404 page, without a backend read")
    func notSlugsAreNotRead() async throws {
        try await ConsoleFixture.withCountedConsole { browser, _, proxy, _ in
            // setup
            try await browser.signIn()
            let before = await proxy.forwardedInAll()
            for path in ["/libraries/%20", "/libraries/..%2f", "/libraries/a%22b%3Cc", "/libraries/caf%C3%A9"] {
                // act
                let page = try await browser.get(path)
                // check
                #expect(page.status == .notFound, "\(path): \(page)")
                #expect(page.contains("Not found"))
            }
            #expect(await proxy.forwardedInAll() == before, "no backend read was spent on them")
        }
    }

    @Test("a row's key reused for the other button is refused with a clear message; nothing else is recorded or sent")
    func keyReusedForAnotherDecision() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup: resolve an open report from its row
            try await browser.signIn()
            let reports = try await browser.get("/reports")
            let reportID = try #require(reports.html.range(of: #"action="/reports/"#).map { String(reports.html[$0.upperBound...].prefix { $0.isNumber }) })
            let key = try #require(reports.field("key", after: "/reports/\(reportID)/decide"))
            let reportReason = try #require(reports.field("report_reason", after: "/reports/\(reportID)/decide"))
            let form = { (decision: String) in
                [
                    ("csrf", reports.csrfToken ?? ""), ("key", key), ("seen", "open"), ("decision", decision), ("back", "/reports"),
                    ("report_reason", reportReason),
                ]
            }
            try await browser.post("/reports/\(reportID)/decide", form: form("resolve"))
            // Applied within the 2 s the form waits, or (a loaded machine) recorded and on its way.
            let resolved = try await browser.get("/reports")
            #expect(resolved.contains(" resolved.") || resolved.contains("Your decision is recorded and waiting to be sent"), "\(resolved)")
            // act: the same rendered row (the browser's back button), the other button
            let second = try await browser.post("/reports/\(reportID)/decide", form: form("dismiss"))
            let after = try await browser.get("/reports")
            // check
            #expect(second.status == .seeOther || second.status == .badRequest, "\(second)")
            let told = second.status == .badRequest ? second : after
            #expect(told.contains("already used for another decision"), "\(told)")
            #expect(!after.contains(" dismissed."))
            #expect(try recordedActions(directory) == 1)
            let stored = try DatabaseQueue.waiting(path: directory.path("console.sqlite"))
            #expect(
                try await stored.read { db in try String.fetchOne(db, sql: "SELECT reportReason FROM action") } == reportReason, "kept to find the report again"
            )
            let token = try await sandbox.accessToken()
            try await MirrorFixture.eventually("the report is resolved at Book Corners", timeout: .seconds(30)) {
                let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/reports?status=all&page_size=50", token: token).jsonObject()
                let report = ((list?["items"] as? [[String: Any]]) ?? []).first { String(describing: $0["id"] ?? "") == reportID }
                return report?["status"] as? String == "resolved"
            }
        }
    }

    @Test("a stale one-click approval key says the decision was already made, instead of flashing a fresh 'Approved'")
    func staleQuickApproveKey() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup: approve a row in one click, then someone returns it to pending
            try await browser.signIn()
            let list = try await browser.get("/libraries?page_size=50")
            // A row with a one-click Approve (a possible duplicate offers Compare… instead).
            let slug = try #require(list.html.firstMatch(of: #/formaction="/libraries/([^/"]+)/decide" name="quick"/#).map { String($0.1) })
            let form = [
                ("csrf", list.csrfToken ?? ""), ("key", list.field("key") ?? ""), ("back", "/libraries"), ("decision", "approve"), ("quick", "pending"),
            ]
            try await browser.post("/libraries/\(slug)/decide", form: form)
            #expect(try await browser.get("/libraries").contains("Approved: "))
            _ = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: try await sandbox.accessToken(), json: #"{"status": "pending"}"#)
            // act: the stale list (back button) is clicked again
            try await browser.post("/libraries/\(slug)/decide", form: form)
            let after = try await browser.get("/libraries")
            // check
            #expect(after.contains("already recorded"), "\(after)")
            #expect(!after.contains("<div class=\"flash\" role=\"status\">Approved: "))
            #expect(try await backendStatus(sandbox, "/api/v1/libraries/moderation/\(slug)") == "pending", "nothing was sent")
            #expect(try recordedActions(directory) == 1)
        }
    }
}
