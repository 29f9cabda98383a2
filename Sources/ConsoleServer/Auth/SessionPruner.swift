import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Deletes expired sessions (dropping their decrypted tokens from memory) and sign-in
/// attempts too old to count, every `interval`, so neither table grows forever.
struct SessionPruner: Service {
    let sessions: StaffSessions
    let store: ModerationStore
    let interval: TimeInterval
    /// Stops calendar feeds whose owners have been gone too long (see `IdleCalendarFeeds`).
    var idleFeeds = IdleCalendarFeeds(idleDays: IdleCalendarFeeds.defaultIdleDays)
    /// Attempts older than this no longer matter to any lockout (its window is 15 minutes).
    var attemptRetention: TimeInterval = 24 * 60 * 60
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: .seconds(interval)) { await self.pruneOnce() }
    }

    /// One pass; a failure is logged and the next pass tries again.
    func pruneOnce(now: Date = Date()) async {
        do {
            let sessionCount = try await sessions.pruneExpired(now: now)
            let attemptCount = try await store.deleteSignInAttempts(before: now.addingTimeInterval(-attemptRetention))
            // Why a session was ended matters to its owner's next page, not a day later.
            try await store.deleteEndedSessions(before: now.addingTimeInterval(-attemptRetention))
            for stopped in try await idleFeeds.stop(in: store, now: now) {
                logger.notice("calendar feed stopped: its owner has not signed in for a while", metadata: ["actor": "\(stopped.username)"])
            }
            if sessionCount + attemptCount > 0 {
                logger.debug("pruned", metadata: ["sessions": "\(sessionCount)", "signInAttempts": "\(attemptCount)"])
            }
        } catch is CancellationError {
            return  // shutting down: the next start prunes
        } catch {
            logger.error("pruning sessions failed", metadata: ["error": "\(error)"])
        }
    }
}
