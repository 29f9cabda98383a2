import Foundation

/// Where the client asks before each HTTP attempt it makes, the first of a call, a retry and
/// the re-send after a token refresh alike, so that whoever keeps the budget counts every
/// request the backend will count. Told of every 429, so `retry_after` holds for every caller.
public protocol BackendCallGate: Sendable {
    /// One attempt at `endpoint` is about to go out; `budget` is the call's, and
    /// `firstOfCall` says whether it is the call's first attempt (a `prepaid` budget's first
    /// attempt was counted by its caller already). Answers `nil` when it may go (counted),
    /// else when the budget allows another.
    func admit(_ endpoint: BackendEndpoint, budget: CallBudget, firstOfCall: Bool) async -> Date?

    /// The backend answered 429 for `endpoint`: nothing more in its scope until `until`.
    func backendLimited(_ endpoint: BackendEndpoint, until: Date) async
}

/// Which share of the budget a call's reads spend; writes, sign-ins and refreshes always spend
/// their own limits whatever this says.
public struct CallBudget: Sendable, Hashable {
    /// The share's name, as the gate knows it (`nil`: the gate picks by endpoint).
    public var pool: String?
    /// The call's first attempt was granted (and counted) before the call began.
    public var prepaid: Bool

    public init(pool: String? = nil, prepaid: Bool = false) {
        self.pool = pool
        self.prepaid = prepaid
    }

    /// Chosen by the gate from the endpoint alone.
    public static let standard = CallBudget()
}
