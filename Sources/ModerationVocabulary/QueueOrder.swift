/// The order a queue lists its items in. Waiting items are reviewed first come, first
/// served, so a waiting queue opens oldest first; the backend itself lists newest first.
public enum QueueOrder: String, Sendable, CaseIterable {
    case oldest, newest

    /// The order a list opens in when the URL names none: oldest first for what is waiting.
    public static func standard(listsWaitingItems: Bool) -> QueueOrder {
        listsWaitingItems ? .oldest : .newest
    }

    /// "Oldest first", "Newest first".
    public var label: String {
        switch self {
        case .oldest: "Oldest first"
        case .newest: "Newest first"
        }
    }
}
