/// One HTTP attempt asked of a share of the backend budget: granted only while the share's
/// spending in the window stays under `limit` once what must be kept back is counted.
public struct BudgetClaim: Sendable, Equatable {
    /// The backend's rate-limit scope.
    public var scope: String
    /// The share within the scope (`mirror`, `watcher`, `write`, …).
    public var pool: String
    public var windowIndex: Int
    /// Attempts the share may make in the window.
    public var limit: Int
    /// Of `limit`, the attempts only claims `fromReserve` may take (the decision checks' share).
    public var reserve: Int
    /// Taken from the reserve (a decision check): only `limit` binds it.
    public var fromReserve: Bool
    /// Attempts to leave for later in the window besides the reserve (the queue fronts still due).
    public var headroom: Int

    public init(scope: String, pool: String, windowIndex: Int, limit: Int, reserve: Int = 0, fromReserve: Bool = false, headroom: Int = 0) {
        self.scope = scope
        self.pool = pool
        self.windowIndex = windowIndex
        self.limit = limit
        self.reserve = reserve
        self.fromReserve = fromReserve
        self.headroom = headroom
    }
}

/// What a share has spent in one window.
public struct BudgetSpending: Sendable, Equatable {
    public var spent: Int
    /// Of `spent`, from the reserve.
    public var reserveSpent: Int

    public init(spent: Int = 0, reserveSpent: Int = 0) {
        self.spent = spent
        self.reserveSpent = reserveSpent
    }
}
