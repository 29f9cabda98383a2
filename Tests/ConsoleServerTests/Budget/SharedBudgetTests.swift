import Foundation
import ModerationStore
import NIOHTTP1
import Sandbox
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two real `console serve` processes on one database spend one backend budget: counted by the
/// sandbox's own request log, as the backend counts, over real windows (20 s, so two fit).
@Suite("One budget per database", .serialized, .timeLimit(.minutes(3)))
struct SharedBudgetTests {
    private static let window = 20
    /// The test's own calls to the sandbox come from this address: a bucket of their own, and left out of the counts.
    private static let testAddress = "198.51.100.9"

    private func startConsole(port: Int, backend: URL, directory: TemporaryDirectory) throws -> SpawnedProcess {
        try ConsoleBinary.start(
            [
                "serve", "--no-metrics", "--no-watch", "--port", String(port), "--database", directory.path("console.sqlite"),
                "--backend-url", backend.absoluteString, "--templates", RepositoryPaths.templates, "--public", RepositoryPaths.publicFiles,
                "--log-level", "error",
                // The sandbox's limits, in 20-s windows: the console's share is 30 reads per scope, 6 of them kept for decision checks.
                "--mirror-backend-window", String(Self.window), "--mirror-backend-limit", "60",
                // The sandbox counts a call as it arrives: one window per call.
                "--backend-count-span", "0",
                // A mirror that wants more than its share: queue fronts every second, passes back to back.
                "--mirror-first-page-interval", "1", "--mirror-pending-interval", "2", "--mirror-tick-interval", "0.2", "--mirror-pass-interval", "1",
            ], in: URL(fileURLWithPath: directory.path("")), log: directory.path("console-\(port).log"))
    }

    @Test("two console processes on one database for two windows: every scope at or under its share, and 20 decisions from both meet no 429")
    func twoProcessesSpendOneBudget() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: ConsoleBinary.path), "swift build makes the console binary")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limits = RateLimitPolicy(windowSeconds: Self.window, reads: 60, writes: 10, logins: 10, refreshes: 15)
        let logPath = directory.path("requests.ndjson")
        try await SandboxFixture.run(rateLimits: limits, requestLogPath: logPath) { sandbox in
            // setup: two consoles on one database (the second once the first made the token key)
            let ports = [try FreePort.find(), try FreePort.find()]
            var consoles: [SpawnedProcess] = []
            defer { consoles.forEach { $0.stop() } }
            for port in ports {
                let console = try startConsole(port: port, backend: sandbox.baseURL, directory: directory)
                consoles.append(console)
                try await ConsoleBinary.waitUntilUp(console, port: port, log: directory.path("console-\(port).log"))
            }
            let bases = ports.map { "http://127.0.0.1:\($0)" }
            var sessions: [String] = []
            for base in bases {
                sessions.append(try #require(try await RawForms.signIn(base: base, login: "staff", password: SeedAccounts.demoStaffPassword)))
            }
            let slugs = try await pendingSlugs(sandbox, count: 20)
            let measuredFrom = Self.windowStart(after: Date())

            // act: ten decisions posted to each console at once
            for (index, base) in bases.enumerated() {
                let page = try await rawHTTP(.GET, base + "/libraries", headers: [("Cookie", sessions[index])])
                let csrf = try #require(RawForms.field("csrf", in: page.text))
                let items = slugs[(index * 10)..<(index * 10 + 10)].map { ("item", "\($0)|pending|x") }
                let posted = try await rawHTTP(
                    .POST, base + "/libraries/bulk/confirm",
                    headers: [("Cookie", sessions[index]), ("Content-Type", "application/x-www-form-urlencoded")],
                    body: RawForms.body([("csrf", csrf), ("key", UUID().uuidString), ("decision", "approve"), ("reason", "")] + Array(items)))
                #expect(posted.status == 303, "decisions recorded at console \(index + 1)")
            }
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let measuredUntil = measuredFrom.addingTimeInterval(Double(2 * Self.window))
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                let applied = try await store.auditEntries(limit: 200).filter { $0.action == "library.approve" && $0.outcome == .applied }.count
                if applied == 20 && Date() > measuredUntil { break }
                try await Task.sleep(for: .milliseconds(500))
            }
            consoles.forEach { $0.stop() }

            // check: what the backend counted, per scope, kind and window
            let lines = try String(contentsOfFile: logPath, encoding: .utf8).split(separator: "\n").compactMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.filter { ($0["client"] as? String) != Self.testAddress }
            var counts: [String: Int] = [:]
            for line in lines {
                guard let scope = line["scope"] as? String, let kind = line["kind"] as? String, let window = line["window"] as? Int else { continue }
                counts["\(kind) \(scope) \(window)", default: 0] += 1
            }
            let limited = lines.filter { ($0["status"] as? Int) == 429 }
            #expect(limited.isEmpty, "no 429: \(limited.map { "\($0["method"] ?? "") \($0["path"] ?? "")" })")
            let reads = counts.filter { $0.key.hasPrefix("read ") }
            #expect(reads.values.allSatisfy { $0 <= 30 }, "reads per scope and window within the console's 30: \(reads.sorted { $0.key < $1.key })")
            let writes = counts.filter { $0.key.hasPrefix("write ") }
            #expect(writes.values.allSatisfy { $0 <= 10 }, "writes within 10 per window: \(writes)")
            #expect(counts.filter { $0.key.hasPrefix("login ") }.values.allSatisfy { $0 <= 10 })
            let listWindows = reads.filter { $0.key.hasPrefix("read api-library-moderation-list ") }
            #expect(listWindows.values.contains { $0 >= 20 }, "the mirror wanted more than its share, and spent it in one process only: \(listWindows)")
            let approvals = try await store.auditEntries(limit: 200).filter { $0.action == "library.approve" && $0.outcome == .applied }
            #expect(approvals.count == 20, "every decision applied, once")
            #expect(Set(approvals.map(\.targetSlug)) == Set(slugs))
            let token = try await accessToken(sandbox)
            for slug in slugs.prefix(3) {
                let detail = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: token, headers: [("X-Forwarded-For", Self.testAddress)])
                #expect(try detail.jsonObject()?["status"] as? String == "approved")
            }
        }
    }

    /// The start of the first window after `date`.
    private static func windowStart(after date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / Double(window)).rounded(.up) * Double(window))
    }

    private func accessToken(_ sandbox: SandboxFixture) async throws -> String {
        let answer = try await sandbox.raw(
            .POST, "/api/v1/auth/login", body: Array(#"{"username": "staff", "password": "\#(SeedAccounts.demoStaffPassword)"}"#.utf8),
            headers: [("X-Forwarded-For", Self.testAddress)])
        return try #require(try answer.jsonObject()?["access"] as? String)
    }

    private func pendingSlugs(_ sandbox: SandboxFixture, count: Int) async throws -> [String] {
        let token = try await accessToken(sandbox)
        let list = try await sandbox.raw(
            .GET, "/api/v1/libraries/moderation/pending?page_size=\(count)", token: token, headers: [("X-Forwarded-For", Self.testAddress)])
        let slugs = ((try list.jsonObject()?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
        try #require(slugs.count == count)
        return slugs
    }
}
