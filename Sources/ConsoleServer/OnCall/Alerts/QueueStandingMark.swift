import Foundation
import ModerationStore
import Mustache

/// How a waiting item stands against its queue's target, as queue rows show it: words and a
/// CSS class (`standing-overdue`, `standing-near`), never colour alone.
struct QueueStandingMark: Sendable, Hashable, MustacheParent {
    private let standingValue: QueueTargets.Standing
    let isMarked: Bool
    /// How long it waited and the queue's target, as alerts word them; "" within target.
    private let waited: String
    private let target: String

    init(_ queue: ModerationQueue, createdAt: Date, targets: QueueTargets, now: Date) {
        let standing = targets.standing(queue, createdAt: createdAt, now: now)
        standingValue = standing
        isMarked = standing != .withinTarget
        // Worded only for a mark that shows: most rows of a queue are within their target.
        waited = isMarked ? QueueAlertNotification.age(now.timeIntervalSince(createdAt)) : ""
        target = isMarked ? QueueAlertNotification.target(targets.target(queue)) : ""
    }

    /// "Overdue: waited 3 d 4 h, target 48 h"; empty within target. Put together when the markup
    /// asks (a queue row kept from an earlier view never does: `KeyedFragment`).
    var text: String {
        switch standingValue {
        case .overdue: "Overdue: waited \(Self.keptTogether(waited)), target \(Self.keptTogether(target))"
        case .near: "Near target: waited \(Self.keptTogether(waited)) of \(Self.keptTogether(target))"
        case .withinTarget: ""
        }
    }

    /// `overdue`, `near` or `within-target`.
    var standing: String { standingValue.rawValue }

    /// "3 d 4 h" with a no-break space between each number and its unit, so a narrow cell
    /// wraps the mark between "3 d" and "4 h", never between "3" and "d".
    static func keptTogether(_ duration: String) -> String {
        var result = ""
        for word in duration.split(separator: " ") {
            if !result.isEmpty {
                switch word {
                case "s", "min", "h", "d", "w": result += "\u{00A0}"
                default: result += " "
                }
            }
            result += word
        }
        return result
    }

    /// Within target: nothing to show (for rows whose item is not waiting).
    static let none = QueueStandingMark()

    private init() {
        standingValue = .withinTarget
        isMarked = false
        waited = ""
        target = ""
    }

    func child(named key: String) -> Any? {
        switch key {
        case "standing": standing
        case "text": text
        case "isMarked": isMarked
        default: nil
        }
    }
}
