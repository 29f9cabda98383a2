/// Why the mirror wants a read, in the order the planner serves them.
public enum ReadPurpose: Int, Sendable, Comparable, CaseIterable {
    /// The first page of a queue (pending libraries, open reports, pending photos) or the
    /// summary: confirmed at least every `firstPageInterval`.
    case queueFront = 1
    /// The rest of a queue, so every waiting item is re-read every `pendingItemInterval`
    /// while the budget allows; read for read with a full pass when both have work.
    case pendingItems = 2
    /// The check right before a decision is sent, from a reserved share of the budget.
    case decisionCheck = 3
    /// Passes over every status (and detail reads confirming items a pass missed), with
    /// whatever the other purposes leave (shared alike with the pending sweep).
    case fullPass = 4

    public static func < (lhs: ReadPurpose, rhs: ReadPurpose) -> Bool { lhs.rawValue < rhs.rawValue }
}
