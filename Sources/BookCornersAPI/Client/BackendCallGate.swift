import Foundation
import Synchronization

/// Where the client asks before each HTTP attempt it makes, the first of a call, a retry and
/// the re-send after a token refresh alike, so that whoever keeps the budget counts every
/// request the backend will count. Told of every 429, so `retry_after` holds for every caller.
public protocol BackendCallGate: Sendable {
    /// One attempt at `endpoint` is about to go out under the call's `budget`. Answers `nil`
    /// when it may go (counted, or paid by the budget's ticket), else when the budget allows another.
    func admit(_ endpoint: BackendEndpoint, budget: CallBudget) async -> Date?

    /// The backend answered 429 for `endpoint`: nothing more in its scope until `until`.
    func backendLimited(_ endpoint: BackendEndpoint, until: Date) async
}

/// Which share of the budget a call's reads spend, and the ticket of an attempt its caller
/// was granted before the call; writes, sign-ins and refreshes always spend their own limits.
public struct CallBudget: Sendable {
    /// The share's name, as the gate knows it (`nil`: the gate picks by endpoint).
    public var pool: String?
    /// One attempt granted and counted before the call began; the first attempt in its scope spends it.
    public var ticket: BudgetTicket?

    public init(pool: String? = nil, ticket: BudgetTicket? = nil) {
        self.pool = pool
        self.ticket = ticket
    }

    /// Chosen by the gate from the endpoint alone.
    public static let standard = CallBudget()
}

/// One backend attempt already counted in the budget, spent by exactly one attempt in its
/// scope: a grant made before a call (so a caller can decide not to call) is not counted twice,
/// and a retry or a second call never rides on it.
public final class BudgetTicket: Sendable {
    /// The backend rate-limit scope it was counted in.
    public let scope: String
    private let unspent = Mutex(true)

    public init(scope: String) {
        self.scope = scope
    }

    /// Spends the ticket on an attempt at `endpoint`: true once, and only in its own scope.
    public func spend(on endpoint: BackendEndpoint) -> Bool {
        guard endpoint.scope == scope else { return false }
        return unspent.withLock { unspent in
            defer { unspent = false }
            return unspent
        }
    }
}
