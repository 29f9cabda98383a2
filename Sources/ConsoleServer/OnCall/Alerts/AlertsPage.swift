import Foundation
import ModerationStore
import Mustache

/// Alerts & targets: each queue's target age with a form to change it, the episodes under way
/// with an Acknowledge button, and the last 50 episodes.
struct AlertsPage: MustacheParent {
    /// One queue's target and its form.
    struct Target: MustacheParent {
        let queue: String
        let label: String
        let target: String
        let hours: Int
        let isDefault: Bool
        let defaultText: String

        func child(named key: String) -> Any? {
            switch key {
            case "queue": queue
            case "label": label
            case "target": target
            case "hours": hours
            case "isDefault": isDefault
            case "defaultText": defaultText
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let subnav: [OnCallSubnav]
    let targets: [Target]
    let targetURL = SiteURL.onCallTarget.path
    let minHours = AlertsController.targetHours.lowerBound
    let maxHours = AlertsController.targetHours.upperBound
    let problem: String
    let hasProblem: Bool
    let active: [AlertEpisodeRow]
    let hasActive: Bool
    let history: [AlertEpisodeRow]
    let hasHistory: Bool
    /// How the watcher works, or that it is off.
    let watcher: String
    /// Where the Acknowledge form sends the browser back to.
    let returnTo = AcknowledgeForm.ReturnTo.alerts.rawValue

    /// Each queue's target as the page shows it, the default marked.
    static func targets(_ targets: QueueTargets) -> [Target] {
        ModerationQueue.allCases.map { queue in
            let minutes = targets.minutes(queue)
            let defaultMinutes = Int(queue.defaultTarget.components.seconds / 60)
            return Target(
                queue: queue.rawValue, label: queue.label, target: QueueAlertNotification.target(TimeInterval(minutes * 60)),
                hours: max(1, minutes / 60), isDefault: minutes == defaultMinutes,
                defaultText: QueueAlertNotification.target(TimeInterval(defaultMinutes * 60)))
        }
    }

    static func watcherText(_ configuration: OnCallWatcherConfiguration?) -> String {
        guard let configuration else {
            return "The console is not watching the queues (it was started with --no-watch): nobody is alerted when a queue is overdue."
        }
        // Said for the person on call: what reaches them and when. The budget is an operator's
        // matter; they need only know it cannot crowd out the pages.
        return "The console checks the queues every \(Int(configuration.interval)) s. When one is past its target, the person on call gets a push, "
            + "again every \(QueueAlertNotification.age(configuration.repeatInterval)) while it stays overdue; if nobody acknowledges it within "
            + "\(QueueAlertNotification.age(configuration.ackTimeout)), the next person in the rotation is told too. It checks the console's own copy "
            + "of Book Corners' data, and asks Book Corners itself at most \(configuration.budget) times in \(configuration.windowSeconds / 60) minutes "
            + "when that copy is behind, so watching never uses up the reads the rest of the console needs."
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "subnav": subnav
        case "targets": targets
        case "targetURL": targetURL
        case "minHours": minHours
        case "maxHours": maxHours
        case "problem": problem
        case "hasProblem": hasProblem
        case "active": active
        case "hasActive": hasActive
        case "history": history
        case "hasHistory": hasHistory
        case "watcher": watcher
        case "returnTo": returnTo
        default: nil
        }
    }
}
