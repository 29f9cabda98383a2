import Foundation
import ModerationStore

/// Refuses sign-in for 15 minutes after 5 failures for one account from one address
/// within 15 minutes, before the backend is even asked.
struct SignInThrottle: Sendable {
    let store: ModerationStore
    var maxFailures = 5
    var window: TimeInterval = 15 * 60

    /// Seconds until sign-in is allowed again, or `nil` when it is allowed now.
    func waitTime(login: String, clientAddress: String, now: Date = Date()) throws -> TimeInterval? {
        let failures = try store.failedSignIns(login: login, clientAddress: clientAddress, since: now.addingTimeInterval(-window))
        guard failures.count >= maxFailures, let last = failures.last else { return nil }
        let until = last.addingTimeInterval(window)
        return until > now ? until.timeIntervalSince(now) : nil
    }

    func record(login: String, clientAddress: String, succeeded: Bool, now: Date = Date()) throws {
        try store.recordSignInAttempt(login: login, clientAddress: clientAddress, at: now, succeeded: succeeded)
    }
}
