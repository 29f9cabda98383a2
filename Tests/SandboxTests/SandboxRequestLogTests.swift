import Foundation
import Sandbox
import TestSupport
import Testing

/// `--request-log`: one NDJSON line per API request the sandbox answers, so a benchmark can
/// count a client's reads per rate-limit scope and window.
@Suite("Sandbox: request log", .timeLimit(.minutes(3)))
struct SandboxRequestLogTests {
    @Test("each API request answered is one line: time, window, client, method, path, scope, kind and status (429s too); media is not logged")
    func logsEveryAPIRequest() async throws {
        // setup: one read per 30 s, started well inside a window so both reads share it
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logPath = directory.path("requests.ndjson")
        try await waitIfNearWindowBoundary(window: 30, margin: 12)
        try await SandboxFixture.run(rateLimits: RateLimitPolicy(windowSeconds: 30, reads: 1), requestLogPath: logPath) { sandbox in
            // act
            let token = try await sandbox.accessToken()
            let read = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page=1", token: token)
            let limited = try await sandbox.raw(.GET, "/api/v1/libraries/moderation?status=approved", token: token)
            let elsewhere = try await sandbox.raw(
                .GET, "/api/v1/libraries/moderation?status=approved", token: token, headers: [("X-Forwarded-For", "203.0.113.7")])
            let unknown = try await sandbox.raw(.GET, "/api/v1/no-such-endpoint")
            let media = try await sandbox.raw(.GET, "/media/libraries/none.png")
            let statuses: [Int] = [read.status, limited.status, elsewhere.status, unknown.status, media.status]
            #expect(statuses == [200, 429, 200, 404, 404])

            // check
            let lines = try Self.lines(logPath)
            try #require(lines.count == 5, "login, three reads and the unknown path; not the media request")
            let expected: [(method: String, path: String, client: String, scope: String?, kind: String?, status: Int)] = [
                ("POST", "/api/v1/auth/login", "127.0.0.1", "api-auth-login", "login", 200),
                ("GET", "/api/v1/libraries/moderation/pending?page=1", "127.0.0.1", "api-library-moderation-list", "read", 200),
                ("GET", "/api/v1/libraries/moderation?status=approved", "127.0.0.1", "api-library-moderation-list", "read", 429),
                ("GET", "/api/v1/libraries/moderation?status=approved", "203.0.113.7", "api-library-moderation-list", "read", 200),
                ("GET", "/api/v1/no-such-endpoint", "127.0.0.1", nil, nil, 404),
            ]
            for (line, want) in zip(lines, expected) {
                #expect(line.method == want.method)
                #expect(line.path == want.path)
                #expect(line.client == want.client)
                #expect(line.scope == want.scope)
                #expect(line.kind == want.kind)
                #expect(line.status == want.status)
                let time = try #require(Self.parseTime(line.time), "time \(line.time) is ISO 8601 with milliseconds, UTC")
                let seconds = Int(time.timeIntervalSince1970)
                #expect(line.window == seconds - seconds % 30, "the window is the epoch-aligned start of the configured 30 s")
                #expect(abs(time.timeIntervalSinceNow) < 60)
            }
        }
    }

    @Test("with rate limits off the windows are the real backend's 300 s; a restarted sandbox appends to the same file")
    func limitsOffUseTheBackendWindowAndAppend() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logPath = directory.path("logs/requests.ndjson")
        let database = directory.path("sandbox.sqlite")
        // act
        for _ in 0..<2 {
            try await SandboxFixture.run(rateLimits: nil, databasePath: database, requestLogPath: logPath) { sandbox in
                let answer = try await sandbox.raw(.GET, "/api/v1/statistics/")
                #expect(answer.status == 200)
            }
        }
        // check
        let lines = try Self.lines(logPath)
        #expect(lines.map(\.scope) == ["api-statistics", "api-statistics"])
        for line in lines {
            let time = try #require(Self.parseTime(line.time))
            let seconds = Int(time.timeIntervalSince1970)
            #expect(line.window == seconds - seconds % 300)
        }
    }

    @Test("a log file that cannot be written stops start-up with an error naming it")
    func unwritableLogIsAStartUpError() throws {
        // setup: the log's folder would have to be inside a plain file
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.path("not-a-folder")
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let configuration = SandboxConfiguration(
            databasePath: directory.path("sandbox.sqlite"), libraryCount: 25, requestLogPath: blocker + "/requests.ndjson")
        // act
        let error = #expect(throws: RequestLogError.self) {
            _ = try buildSandboxApplication(configuration: configuration, port: 0)
        }
        // check
        #expect(error?.description.contains(blocker + "/requests.ndjson") == true)
        #expect(error?.description.contains("--request-log") == true)
    }

    /// One decoded log line.
    private struct Line: Decodable {
        let time: String
        let window: Int
        let client: String
        let method: String
        let path: String
        let scope: String?
        let kind: String?
        let status: Int
    }

    private static func lines(_ path: String) throws -> [Line] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n"), "every line is complete")
        return try text.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["time", "window", "client", "method", "path", "scope", "kind", "status"], "every field, null when it has none")
            return try JSONDecoder().decode(Line.self, from: Data(line.utf8))
        }
    }

    /// `2026-11-23T16:17:25.123Z`: milliseconds, UTC; nil for anything else.
    private static func parseTime(_ text: String) -> Date? {
        guard text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil else { return nil }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
