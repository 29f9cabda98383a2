/// The three queues staff work through, each with a target age for its waiting items.
public enum ModerationQueue: String, Sendable, CaseIterable, Codable, Hashable {
    case libraries
    case reports
    case photos

    /// How a page names it.
    public var label: String {
        switch self {
        case .libraries: "Library submissions"
        case .reports: "Reports"
        case .photos: "Photos"
        }
    }

    /// The age an item may reach before the queue counts as overdue, unless staff set another.
    public var defaultTarget: Duration {
        switch self {
        case .libraries: .seconds(48 * 3_600)
        case .reports: .seconds(24 * 3_600)
        case .photos: .seconds(72 * 3_600)
        }
    }
}
