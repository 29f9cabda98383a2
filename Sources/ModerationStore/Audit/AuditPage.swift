/// One page of the audit log, newest first, and whether there is more on either side.
/// Pages are cut by entry id, so entries that arrive while someone reads never shift them.
public struct AuditPage: Sendable {
    public let entries: [AuditEntry]
    public let hasOlder: Bool
    public let hasNewer: Bool
}

/// The values the audit page offers in its filters.
public struct AuditFilterChoices: Sendable {
    public let actors: [String]
    public let actions: [String]
}

/// What `console audit prune` did.
public struct AuditPruneResult: Sendable, Equatable {
    public let removed: Int
    /// The checkpoint written before the removal; `nil` when nothing was old enough.
    public let checkpointID: Int64?

    public init(removed: Int, checkpointID: Int64?) {
        self.removed = removed
        self.checkpointID = checkpointID
    }
}
