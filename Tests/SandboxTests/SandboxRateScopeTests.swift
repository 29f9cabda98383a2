import Foundation
import Sandbox
import TestSupport
import Testing

/// The sandbox counts reads per scope exactly as backend-api.md lists them, and a test can
/// shorten the window so budget tests take seconds.
@Suite("Sandbox: rate-limit scopes", .timeLimit(.minutes(3)))
struct SandboxRateScopeTests {
    /// Each read endpoint the console uses, with the real backend's scope name.
    private static let otherScopes = [
        "/api/v1/libraries/moderation/summary",
        "/api/v1/libraries/moderation/reports",
        "/api/v1/libraries/moderation/photos",
        "/api/v1/statistics/",
        "/api/v1/libraries/",
    ]

    @Test("the two library lists share one budget of 6 reads per 3 s; every other read scope has its own; the 7th says retry_after")
    func listsShareOneScope() async throws {
        try await SandboxFixture.run(rateLimits: RateLimitPolicy(windowSeconds: 3, reads: 6)) { sandbox in
            // setup
            let token = try await sandbox.accessToken()
            let slug = try #require(try await firstPendingSlug(sandbox, token, pages: false))
            var lists: [Int] = []
            var others: [Int] = []
            var retryAfter: Int?
            // act: all in one window; on a starved machine that straddles a boundary, try again in a fresh one
            for _ in 0..<5 {
                try await waitForNextWindow(window: 3)
                let window = Int(Date().timeIntervalSince1970 / 3)
                lists = []
                others = []
                for index in 0..<7 {
                    let path = index.isMultiple(of: 2) ? "/api/v1/libraries/moderation/pending" : "/api/v1/libraries/moderation?status=pending"
                    let answer = try await sandbox.raw(.GET, path, token: token)
                    lists.append(answer.status)
                    if answer.status == 429 {
                        retryAfter = (try answer.jsonObject()?["details"] as? [String: Any])?["retry_after"] as? Int
                    }
                }
                for path in Self.otherScopes + ["/api/v1/libraries/moderation/\(slug)"] {
                    others.append(try await sandbox.raw(.GET, path, token: token).status)
                }
                if Int(Date().timeIntervalSince1970 / 3) == window { break }
            }
            // check
            #expect(lists == [200, 200, 200, 200, 200, 200, 429], "pending and ?status= draw from one budget of 6")
            #expect(others == Array(repeating: 200, count: Self.otherScopes.count + 1), "other scopes are untouched")
            let wait = try #require(retryAfter)
            #expect((1...3).contains(wait), "retry_after is the rest of the 3-second window")
            try await Task.sleep(for: .seconds(wait) + .milliseconds(100))
            #expect(try await sandbox.raw(.GET, "/api/v1/libraries/moderation?status=all", token: token).status == 200)
        }
    }

    @Test("a detail read spends the detail scope only, not the lists'")
    func detailHasItsOwnScope() async throws {
        try await SandboxFixture.run(rateLimits: RateLimitPolicy(windowSeconds: 3, reads: 2)) { sandbox in
            // setup
            let token = try await sandbox.accessToken()
            var statuses: [Int] = []
            for _ in 0..<5 {
                try await waitForNextWindow(window: 3)
                let window = Int(Date().timeIntervalSince1970 / 3)
                // act
                let slug = try await firstPendingSlug(sandbox, token, pages: true)
                statuses = []
                for _ in 0..<3 { statuses.append(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug ?? "")", token: token).status) }
                statuses.append(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending", token: token).status)
                if Int(Date().timeIntervalSince1970 / 3) == window { break }
            }
            // check: 2 details, the 3rd limited; the list had spent 1 of its own 2 and still answers
            #expect(statuses == [200, 200, 429, 200])
        }
    }

    /// Sleeps until just after the next window boundary, so a test starts with a full budget.
    private func waitForNextWindow(window: Int) async throws {
        try await waitIfNearWindowBoundary(window: window, margin: Double(window) + 1)
    }

    private func firstPendingSlug(_ sandbox: SandboxFixture, _ token: String, pages: Bool) async throws -> String? {
        let path = pages ? "/api/v1/libraries/moderation/pending" : "/api/v1/libraries/moderation?status=pending&page_size=1"
        let list = try await sandbox.raw(.GET, path, token: token).jsonObject()
        return (list?["items"] as? [[String: Any]])?.first?["slug"] as? String
    }
}
