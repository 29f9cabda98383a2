import Foundation
import ModerationStore

/// Refuses sign-in for 15 minutes after 5 failures for one account from one address, or
/// 10 failures from one address whatever was typed, within 15 minutes, before the backend
/// is even asked. Book Corners allows the whole console 10 logins per 5 minutes: one address
/// guessing names must not spend them all. Each attempt is recorded (as a failure) when it
/// is admitted, so parallel attempts cannot all slip through together.
struct SignInThrottle: Sendable {
    /// Whether an attempt may go ahead.
    enum Admission: Equatable {
        case admitted(attemptID: Int64)
        /// Seconds until sign-in to this account from this address is allowed again.
        case locked(wait: TimeInterval)
        /// Seconds until any sign-in from this address is allowed again.
        case addressLocked(wait: TimeInterval)
    }

    let store: ModerationStore
    var maxFailures = 5
    var maxFailuresPerAddress = 10
    var window: TimeInterval = 15 * 60

    /// `remembered`: the browser signed in here before for this account, so failures of others
    /// at its address (a shared office or phone network) do not lock it out; its own still do.
    func admit(login: String, clientAddress: String, remembered: Bool = false, now: Date = Date()) async throws -> Admission {
        switch try await store.admitSignInAttempt(
            login: login, clientAddress: clientAddress, now: now, maxFailures: maxFailures, window: window,
            maxFailuresPerAddress: remembered ? .max : maxFailuresPerAddress)
        {
        case .admitted(let id): .admitted(attemptID: id)
        case .locked(let until): .locked(wait: until.timeIntervalSince(now))
        case .addressLocked(let until): .addressLocked(wait: until.timeIntervalSince(now))
        }
    }

    func settle(_ attemptID: Int64, as settlement: SignInSettlement) async throws {
        try await store.settleSignInAttempt(attemptID, as: settlement)
    }
}
