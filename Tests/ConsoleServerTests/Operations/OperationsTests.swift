import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import Sandbox
import Synchronization
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Operations: metrics, alerts, structured logs", .timeLimit(.minutes(3)))
struct OperationsTests {
    /// The families a scrape must have once a staff member has signed in and decided.
    static let families = [
        "console_http_requests_total", "console_http_request_duration_seconds", "console_backend_requests_total",
        "console_backend_request_duration_seconds", "console_backend_window_calls", "console_backend_window_limit",
        "console_backend_write_hold_seconds", "console_actions", "console_action_oldest_unfinished_age_seconds",
        "console_outbox_messages", "console_audit_appends_total", "console_sessions_active", "console_pass_duration_seconds",
        "console_pass_errors_total", "console_database_up",
    ]

    private func scrape(_ port: Int) async throws -> String {
        try await rawHTTP(.GET, "http://127.0.0.1:\(port)/metrics").text
    }

    /// The value of the sample `series` (name and labels as written), 0 when absent.
    private func value(of series: String, in text: String) -> Double {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test("a scrape after a sign-in and a decision has every family, labels routes by their pattern (never a slug), and has every metric docs/alerts.yml names")
    func scrapeHasTheFamilies() async throws {
        let metricsPort = try FreePort.find()
        try await ConsoleFixture.withConsole(configure: { $0.metrics = MetricsListenerConfiguration(port: metricsPort) }) { browser, sandbox, _ in
            try await browser.signIn()
            let token = try await sandbox.accessToken()
            let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=1", token: token).jsonObject()
            let slug = try #require(((list?["items"] as? [[String: Any]]) ?? []).first?["slug"] as? String)
            // Process-wide counters (swift-metrics is global; other tests' consoles add to them): compared before and after.
            let writes = "console_backend_requests_total{scope=\"api-library-moderation-update\",kind=\"write\",status=\"200\"}"
            let writesBefore = value(of: writes, in: try await scrape(metricsPort))
            _ = try await browser.get("/static/console.css")
            let page = try await browser.get("/libraries/\(slug)")
            let key = try #require(page.field("key", after: "/libraries/\(slug)/decide"))
            let decided = try await browser.post(
                "/libraries/\(slug)/decide", form: [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")])
            #expect(decided.status == .seeOther)
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            repeat {
                text = try await scrape(metricsPort)
                if text.contains("console_actions{state=\"applied\"} 1") { break }
                try await Task.sleep(for: .milliseconds(100))
            } while Date() < deadline

            #expect(text.contains("console_actions{state=\"applied\"} 1"))
            let typed = Set(text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
            for family in Self.families {
                #expect(typed.contains(family), "\(family) missing")
            }
            #expect(text.contains("console_http_requests_total{route=\"/libraries/{slug}\",method=\"GET\",status=\"200\"}"))
            #expect(value(of: writes, in: text) >= writesBefore + 1)
            #expect(text.contains("console_http_requests_total{route=\"/static/{name}\",method=\"GET\",status=\"200\"}"), "static files by their pattern")
            #expect(text.contains("console_backend_window_calls{scope=\"api-library-moderation-update\",kind=\"write\"} 1"))
            #expect(text.contains("console_pass_duration_seconds_count{service=\"runner\"}"))
            #expect(!text.contains(slug), "a label never carries a slug")
            // Every console_ metric the alert rules use is one a scrape has.
            let rules = try String(contentsOf: RepositoryPaths.root.appendingPathComponent("docs/alerts.yml"), encoding: .utf8)
            let named = Set(rules.matches(of: /console_[a-z_]+/).map { String($0.output) })
            #expect(named.count >= 6)
            for name in named {
                #expect(typed.contains(name), "docs/alerts.yml names \(name), which no scrape has")
            }
        }
    }

    @Test("--log-format json: one object per request with its id, route, status, duration and staff member; never a password, cookie or token")
    func jsonLogs() async throws {
        let lines = Mutex<[Data]>([])
        let output = LogLineOutput { data in lines.withLock { $0.append(data) } }
        var logger = Logger(label: "console") { label in JSONLogHandler(label: label, output: output) }
        logger.logLevel = .info
        try await ConsoleFixture.withConsole(mirror: .empty, logger: logger) { browser, _, _ in
            try await browser.signIn()
            _ = try await browser.get("/libraries")
        }
        let objects = try lines.withLock { $0 }.map { data in
            #expect(data.last == UInt8(ascii: "\n") && data.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil, "one line per object")
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
        }
        let request = try #require(objects.first { $0["message"] == "request" && $0["route"] == "/libraries" })
        #expect(request["status"] == "200" && request["method"] == "GET" && request["level"] == "info" && request["label"] == "console")
        #expect(request["staff"] == SeedAccounts.demoStaffUsername && Int(request["staff_id"] ?? "") != nil)
        #expect((request["request_id"] ?? "").count >= 16)
        #expect(Double(request["duration_ms"] ?? "") != nil)
        #expect(request["time"]?.hasSuffix("Z") == true)
        let signIn = try #require(objects.first { $0["message"] == "request" && $0["route"] == "/sign-in" && $0["method"] == "POST" })
        #expect(signIn["status"] == "303")
        let everything = String(decoding: lines.withLock { $0 }.joined(), as: UTF8.self)
        #expect(!everything.contains(SeedAccounts.demoStaffPassword))
        #expect(!everything.contains("bc_session") && !everything.contains("Bearer"))
    }

    @Test("names that could hold a secret are dropped from JSON lines, whoever logs them")
    func secretNames() throws {
        let lines = Mutex<[Data]>([])
        let logger = Logger(label: "t") { label in
            JSONLogHandler(label: label, output: LogLineOutput { data in lines.withLock { $0.append(data) } })
        }
        logger.warning("odd", metadata: ["password": "p", "access_token": "t", "Cookie": "c", "csrf": "x", "route": "/a\"b"])
        let line = try #require(lines.withLock { $0.first })
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: String])
        #expect(Set(object.keys) == ["time", "level", "label", "message", "route", "source"])
        #expect(object["route"] == "/a\"b" && object["level"] == "warning")
    }

    @Test("write holds: seconds since the first 429 of a run, gone once a write gets through; window counts start again each window")
    func backendWindows() {
        let clock = Mutex(Date(timeIntervalSince1970: 3_000))
        let metrics = BackendCallMetrics(limits: .init(windowSeconds: 300)) { clock.withLock { $0 } }
        let write = BackendEndpoint(method: .PATCH, path: "libraries/moderation/some-slug")
        let read = BackendEndpoint(method: .GET, path: "libraries/moderation/pending")
        func call(_ endpoint: BackendEndpoint, _ status: Int?) {
            metrics.backendCallFinished(BackendCallRecord(endpoint: endpoint, status: status, duration: .milliseconds(5)))
        }
        func text() -> String {
            var text = PrometheusText()
            metrics.write(into: &text)
            return text.text
        }
        call(write, 429)
        clock.withLock { $0 += 100 }
        call(write, 429)
        call(read, 200)
        call(read, nil)
        #expect(text().contains("console_backend_write_hold_seconds{scope=\"api-library-moderation-update\"} 100"))
        #expect(text().contains("console_backend_window_calls{scope=\"api-library-moderation-list\",kind=\"read\"} 1"), "a call with no answer is not counted")
        #expect(text().contains("console_backend_window_calls{scope=\"api-library-moderation-update\",kind=\"write\"} 2"))
        call(write, 200)
        #expect(!text().contains("console_backend_write_hold_seconds{"))
        clock.withLock { $0 += 300 }
        #expect(!text().contains("console_backend_window_calls{"), "a new window starts empty")
        #expect(metrics.lastAnswerAt == Date(timeIntervalSince1970: 3_100))
        call(read, 503)
        #expect(metrics.lastAnswerAt == Date(timeIntervalSince1970: 3_100), "a 5xx is not an answer")
    }

    @Test(
        "every call is counted in the backend's own scope, without ids",
        arguments: [
            ("POST", "auth/login", "api-auth-login", BackendEndpoint.Kind.signIn),
            ("POST", "auth/refresh", "api-auth-refresh", .refresh),
            ("GET", "auth/me", "api-auth-me", .read),
            ("GET", "libraries/moderation", "api-library-moderation-list", .read),
            ("GET", "libraries/moderation/pending", "api-library-moderation-list", .read),
            ("GET", "libraries/moderation/summary", "api-moderation-summary", .read),
            ("GET", "libraries/moderation/a-slug", "api-library-moderation-detail", .read),
            ("PATCH", "libraries/moderation/a-slug", "api-library-moderation-update", .write),
            ("GET", "libraries/moderation/reports", "api-report-moderation-list", .read),
            ("PATCH", "libraries/moderation/reports/12", "api-report-moderation-update", .write),
            ("GET", "libraries/moderation/photos", "api-photo-moderation-list", .read),
            ("PATCH", "libraries/moderation/photos/7", "api-photo-moderation-update", .write),
            ("GET", "libraries/", "api-library-list", .read),
            ("GET", "statistics/", "api-statistics", .read),
        ])
    func endpointScopes(method: String, path: String, scope: String, kind: BackendEndpoint.Kind) {
        let endpoint = BackendEndpoint(method: .init(rawValue: method), path: path)
        #expect(endpoint == BackendEndpoint(scope: scope, kind: kind))
    }
}
