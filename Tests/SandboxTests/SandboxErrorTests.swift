import Foundation
import Sandbox
import TestSupport
import Testing

@Suite("Sandbox: errors, limits and hostile input", .timeLimit(.minutes(3)))
struct SandboxErrorTests {
    @Test(
        "paths with a wrong trailing slash are Django's HTML 404",
        arguments: [
            "/api/v1/libraries/moderation/", "/api/v1/libraries/moderation/summary/", "/api/v1/auth/me/",
            "/api/v1/libraries/moderation/reports/", "/api/v1/nope",
        ])
    func trailingSlash(path: String) async throws {
        try await SandboxFixture.run { sandbox in
            let answer = try await sandbox.raw(.GET, path, token: try await sandbox.accessToken())
            #expect(answer.status == 404)
            #expect(answer.header("content-type") == "text/html; charset=utf-8")
            #expect(answer.text.hasPrefix("<!DOCTYPE html>"))
        }
    }

    @Test("libraries and statistics without their slash redirect permanently")
    func missingSlashRedirects() async throws {
        try await SandboxFixture.run { sandbox in
            let libraries = try await sandbox.raw(.GET, "/api/v1/libraries?country=DE")
            #expect(libraries.status == 301)
            #expect(libraries.header("location") == "/api/v1/libraries/?country=DE")
            #expect(try await sandbox.raw(.GET, "/api/v1/statistics").header("location") == "/api/v1/statistics/")
        }
    }

    @Test("an unsupported method is an HTML 405 that lists the allowed ones")
    func methodNotAllowed() async throws {
        try await SandboxFixture.run { sandbox in
            let answer = try await sandbox.raw(.DELETE, "/api/v1/libraries/moderation/some-slug", token: try await sandbox.accessToken())
            #expect(answer.status == 405)
            #expect(answer.header("allow") == "PATCH, GET")
        }
    }

    @Test("unknown items are JSON 404s; a non-integer report id is a 422")
    func notFound() async throws {
        try await SandboxFixture.run { sandbox in
            let token = try await sandbox.accessToken()
            for (method, path) in [
                ("GET", "/api/v1/libraries/moderation/no-such-library"), ("PATCH", "/api/v1/libraries/moderation/reports/9999"),
                ("PATCH", "/api/v1/libraries/moderation/photos/9999"), ("PATCH", "/api/v1/libraries/moderation/no-such-library"),
            ] {
                let answer = try await sandbox.raw(.init(rawValue: method), path, token: token, body: Array(#"{"status": "approved"}"#.utf8))
                // A report takes open/resolved/dismissed, so "approved" is a 422 there; others are 404.
                if path.contains("reports") {
                    #expect(answer.status == 422)
                } else {
                    #expect(answer.status == 404, "\(method) \(path)")
                    #expect(try answer.jsonObject()?["message"] as? String == "Not found.")
                    #expect(answer.header("content-type") == "application/json")
                }
            }
            let report = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/reports/9999", token: token, json: #"{"status": "resolved"}"#)
            #expect(report.status == 404)
            let notInt = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/reports/abc", token: token, json: #"{"status": "resolved"}"#)
            #expect(notInt.status == 422)
            #expect(notInt.text.contains("int_parsing"))
        }
    }

    @Test(
        "validation errors are 422 with details.errors naming each field",
        arguments: [
            ("/api/v1/libraries/moderation?status=bogus", "status", "enum"),
            ("/api/v1/libraries/moderation?page=0", "page", "greater_than_equal"),
            ("/api/v1/libraries/moderation?page_size=51", "page_size", "less_than_equal"),
            ("/api/v1/libraries/moderation?page=abc", "page", "int_parsing"),
            ("/api/v1/libraries/moderation/reports?reason=boring", "reason", "enum"),
            ("/api/v1/libraries/?lat=52.5", "radius_km", "value_error"),
            ("/api/v1/libraries/?lat=north&lng=1&radius_km=1", "lat", "float_parsing"),
        ])
    func queryValidation(path: String, field: String, type: String) async throws {
        try await SandboxFixture.run { sandbox in
            let answer = try await sandbox.raw(.GET, path, token: try await sandbox.accessToken())
            #expect(answer.status == 422)
            #expect(answer.header("content-type") == "application/json")
            let body = try #require(try answer.jsonObject())
            #expect(body["message"] as? String == "Validation error.")
            let errors = try #require((body["details"] as? [String: Any])?["errors"] as? [[String: Any]])
            #expect(errors.contains { ($0["loc"] as? [String])?.last == field && $0["type"] as? String == type })
        }
    }

    @Test(
        "hostile bodies get a 4xx with the error body, never a 500",
        arguments: [
            Array("{not json".utf8), Array(#"{"status": 5}"#.utf8), Array(#"["approved"]"#.utf8), [0xFF, 0xFE, 0x7B, 0x22],
            Array(#"{"status": "approved", "rejection_reason": 12}"#.utf8), Array(#"{"status": null}"#.utf8), [],
        ])
    func hostileBodies(body: [UInt8]) async throws {
        try await SandboxFixture.run { sandbox in
            let token = try await sandbox.accessToken()
            let slug = try #require(try await firstPendingSlug(sandbox, token))
            let answer = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, body: body)
            #expect((400..<500).contains(answer.status))
            #expect(try answer.jsonObject()?["message"] is String)
            let login = try await sandbox.raw(.POST, "/api/v1/auth/login", body: body)
            #expect((400..<500).contains(login.status))
            #expect(try login.jsonObject()?["message"] is String)
        }
    }

    @Test("a 10 MB body is refused with 413 and the error body")
    func hugeBody() async throws {
        try await SandboxFixture.run { sandbox in
            let token = try await sandbox.accessToken()
            let huge = Array(#"{"status": "approved", "rejection_reason": ""#.utf8) + [UInt8](repeating: 0x61, count: 10 * 1024 * 1024) + Array(#""}"#.utf8)
            let answer = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/anything", token: token, body: huge)
            #expect(answer.status == 413)
            #expect(try answer.jsonObject()?["message"] as? String == "Request body too large.")
        }
    }

    @Test("a rejection reason over 2000 characters is a 422")
    func longReason() async throws {
        try await SandboxFixture.run { sandbox in
            let token = try await sandbox.accessToken()
            let slug = try #require(try await firstPendingSlug(sandbox, token))
            let reason = String(repeating: "x", count: 2001)
            let answer = try await sandbox.raw(
                .PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, json: #"{"status": "rejected", "rejection_reason": "\#(reason)"}"#)
            #expect(answer.status == 422)
            #expect(answer.text.contains("string_too_long"))
        }
    }

    @Test("the 11th write in a window is a 429 with details.retry_after; other clients are unaffected")
    func writeRateLimit() async throws {
        try await waitIfNearWindowBoundary(window: 300)
        try await SandboxFixture.run(rateLimits: RateLimitPolicy()) { sandbox in
            let token = try await sandbox.accessToken()
            let list = try #require(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=11", token: token).jsonObject())
            let slugs = try #require(list["items"] as? [[String: Any]]).compactMap { $0["slug"] as? String }
            #expect(slugs.count == 11)
            var statuses: [Int] = []
            for slug in slugs {
                statuses.append(try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, json: #"{"status": "approved"}"#).status)
            }
            #expect(statuses == Array(repeating: 200, count: 10) + [429])
            let limited = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slugs[10])", token: token, json: #"{"status": "approved"}"#)
            let retryAfter = try #require((try limited.jsonObject()?["details"] as? [String: Any])?["retry_after"] as? Int)
            #expect((1...300).contains(retryAfter))
            let elsewhere = try await sandbox.raw(
                .PATCH, "/api/v1/libraries/moderation/\(slugs[10])", token: token, body: Array(#"{"status": "approved"}"#.utf8),
                headers: [("X-Forwarded-For", "203.0.113.9")])
            #expect(elsewhere.status == 200, "another client has its own budget")
        }
    }

    @Test("the 11th sign-in in a window is a 429 with details null")
    func loginRateLimit() async throws {
        try await waitIfNearWindowBoundary(window: 300)
        try await SandboxFixture.run(rateLimits: RateLimitPolicy()) { sandbox in
            var last: RawAnswer?
            for _ in 0..<11 {
                last = try await sandbox.raw(.POST, "/api/v1/auth/login", json: #"{"username": "staff", "password": "wrong"}"#)
            }
            let answer = try #require(last)
            #expect(answer.status == 429)
            #expect(try answer.jsonObject()?["message"] as? String == "Too many login attempts. Please try again later.")
            #expect(try answer.jsonObject()?["details"] is NSNull)
        }
    }

    @Test("windows are aligned to the clock: a short window resets for everyone at once")
    func windowResets() async throws {
        try await SandboxFixture.run(rateLimits: RateLimitPolicy(windowSeconds: 4, reads: 2)) { sandbox in
            let token = try await sandbox.accessToken()
            var statuses: [Int] = []
            // On a starved machine three calls can straddle a boundary; then start over in a fresh window.
            for _ in 0..<5 {
                try await waitIfNearWindowBoundary(window: 4, margin: 2.5)
                let window = Int(Date().timeIntervalSince1970 / 4)
                statuses = []
                for _ in 0..<3 { statuses.append(try await sandbox.raw(.GET, "/api/v1/auth/me", token: token).status) }
                if Int(Date().timeIntervalSince1970 / 4) == window { break }
                try await waitIfNearWindowBoundary(window: 4, margin: 4)
            }
            #expect(statuses == [200, 200, 429])
            try await Task.sleep(for: .milliseconds(4_100))
            #expect(try await sandbox.raw(.GET, "/api/v1/auth/me", token: token).status == 200)
        }
    }

    private func firstPendingSlug(_ sandbox: SandboxFixture, _ token: String) async throws -> String? {
        let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending", token: token).jsonObject()
        return (list?["items"] as? [[String: Any]])?.first?["slug"] as? String
    }
}

/// Sleeps past the next window boundary when it is too close, so a test's requests all
/// land in one window.
func waitIfNearWindowBoundary(window: Int, margin: Double = 10) async throws {
    let now = Date().timeIntervalSince1970
    let left = Double(window) - now.truncatingRemainder(dividingBy: Double(window))
    if left < margin { try await Task.sleep(for: .milliseconds(Int(left * 1000) + 100)) }
}
