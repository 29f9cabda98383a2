import Foundation
import ModerationStore
import Mustache

/// How a waiting item stands against its queue's target, as queue rows show it: words and a
/// CSS class (`standing-overdue`, `standing-near`), never colour alone.
struct QueueStandingMark: Sendable, Equatable, MustacheParent {
    /// `overdue`, `near` or `within-target`.
    let standing: String
    /// "Overdue: waited 3 d 4 h, target 48 h"; empty within target.
    let text: String
    let isMarked: Bool

    init(_ queue: ModerationQueue, createdAt: Date, targets: QueueTargets, now: Date) {
        let standing = targets.standing(queue, createdAt: createdAt, now: now)
        // Worded only for a mark that shows: most rows of a queue are within their target.
        var waited: String { Self.keptTogether(QueueAlertNotification.age(now.timeIntervalSince(createdAt))) }
        var target: String { Self.keptTogether(QueueAlertNotification.target(targets.target(queue))) }
        self.standing = standing.rawValue
        switch standing {
        case .overdue: text = "Overdue: waited \(waited), target \(target)"
        case .near: text = "Near target: waited \(waited) of \(target)"
        case .withinTarget: text = ""
        }
        isMarked = standing != .withinTarget
    }

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
        standing = QueueTargets.Standing.withinTarget.rawValue
        text = ""
        isMarked = false
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
