import Foundation

/// The target age of each queue: an item older than its queue's target is overdue, and one
/// past `nearShare` of it is near.
public struct QueueTargets: Sendable, Equatable {
    private var minutes: [ModerationQueue: Int]

    /// The share of the target after which an item is "near" it.
    public static let nearShare = 0.75
    /// The longest target staff may set: 30 days.
    public static let maxMinutes = 30 * 24 * 60

    public init(minutes: [ModerationQueue: Int] = [:]) {
        self.minutes = minutes
    }

    /// The defaults: library submissions 48 h, reports 24 h, photos 72 h.
    public static let defaults = QueueTargets()

    public func target(_ queue: ModerationQueue) -> TimeInterval {
        TimeInterval(minutes(queue) * 60)
    }

    public func minutes(_ queue: ModerationQueue) -> Int {
        minutes[queue] ?? Int(queue.defaultTarget.components.seconds / 60)
    }

    /// Whether an item created at `createdAt` is past, near or within its queue's target at `now`.
    public func standing(_ queue: ModerationQueue, createdAt: Date, now: Date) -> Standing {
        let age = now.timeIntervalSince(createdAt)
        let target = target(queue)
        if age > target { return .overdue }
        if age > target * Self.nearShare { return .near }
        return .withinTarget
    }

    /// Where an item stands against its queue's target.
    public enum Standing: String, Sendable {
        case withinTarget = "within-target"
        case near
        case overdue
    }
}
