/// The order a queue lists its items in. Waiting items are reviewed first come, first
/// served, so a waiting queue opens oldest first; the backend itself lists newest first.
/// Waiting libraries may also be ranked by the reasons they need a look.
public enum QueueOrder: String, Sendable, CaseIterable {
    case oldest, newest
    /// Strong reasons first, then any reason, then none; oldest first within each.
    case needsALookFirst = "needs-a-look"

    /// The orders every queue offers: by submission time.
    public static let byTime: [QueueOrder] = [.oldest, .newest]

    /// The order a list opens in when the URL names none: oldest first for what is waiting.
    public static func standard(listsWaitingItems: Bool) -> QueueOrder {
        listsWaitingItems ? .oldest : .newest
    }

    /// "Oldest first", "Newest first", "Needs a look first".
    public var label: String {
        switch self {
        case .oldest: "Oldest first"
        case .newest: "Newest first"
        case .needsALookFirst: "Needs a look first"
        }
    }

    /// Whether items are in order of submission time from the oldest (within a rank, when ranked).
    public var isOldestFirst: Bool { self != .newest }
}
