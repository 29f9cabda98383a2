import BookCornersAPI
import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 11 item 17: expired sessions and old sign-in attempts are deleted on a schedule,
/// and a deleted session's decrypted tokens leave memory with it.
@Suite("Pruning sessions and sign-in attempts", .timeLimit(.minutes(3)))
struct SessionPrunerTests {
    @Test("the pruning service deletes an idle session and old attempts, and drops the session's tokens")
    func prunes() async throws {
        // setup: an idle session whose tokens are held in memory, a live one, and an old attempt
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let sessions = StaffSessions(
            store: store, sealer: try TokenSealer(key: Data(repeating: 3, count: 32)), idleTimeout: 30 * 60, lifetime: 12 * 60 * 60,
            logger: ConsoleFixture.quietLogger)
        let account = Account(id: 7, username: "staff", email: "staff@example.com", isSocialOnly: false, isStaff: true)
        let tokens = TokenPair(access: "access", refresh: "refresh")
        let (_, idle) = try await sessions.start(
            account: account, tokens: tokens, clientAddress: "10.0.0.1", userAgent: "test", now: Date().addingTimeInterval(-3_600))
        let (_, live) = try await sessions.start(account: account, tokens: tokens, clientAddress: "10.0.0.1", userAgent: "test")
        _ = try await sessions.credentials(for: idle)
        _ = try await store.admitSignInAttempt(
            login: "staff", clientAddress: "10.0.0.1", now: Date().addingTimeInterval(-2 * 86_400), maxFailures: 5, window: 900)
        let pruner = SessionPruner(sessions: sessions, store: store, interval: 0.1, logger: ConsoleFixture.quietLogger)
        // act
        let running = Task { try await pruner.run() }
        defer { running.cancel() }
        var waited = 0
        while try await store.session(id: idle.id) != nil, waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        // check
        await #expect(try store.session(id: idle.id) == nil)
        await #expect(try store.session(id: live.id) != nil)
        await #expect(try store.deleteSignInAttempts(before: Date()) == 0, "the old attempt went with the same pass")
    }
}
