import Foundation
import ModerationStore

/// The `queue.overdue` messages of an episode: what the holder reads and the data the app gets.
enum QueueAlertNotification {
    /// "Library submissions overdue" / "12 waiting past the 48 h target; the oldest has waited 3 d 4 h."
    static func notice(_ queue: ModerationQueue, overdue: Int, exact: Bool, oldestAge: TimeInterval, target: TimeInterval) -> PushNotification {
        PushNotification(
            title: "\(queue.label) overdue", body: summary(overdue: overdue, exact: exact, oldestAge: oldestAge, target: target),
            type: .queueOverdue, ids: ids(overdue: overdue, oldestAge: oldestAge), texts: ["queue": queue.rawValue])
    }

    /// "Escalated: alice has not acknowledged. 12 waiting past …"
    static func escalation(
        _ queue: ModerationQueue, overdue: Int, exact: Bool, oldestAge: TimeInterval, target: TimeInterval, unacknowledgedBy: String
    ) -> PushNotification {
        PushNotification(
            title: "Escalated: \(queue.label) overdue",
            body: "Escalated: \(unacknowledgedBy) has not acknowledged. "
                + summary(overdue: overdue, exact: exact, oldestAge: oldestAge, target: target),
            type: .queueOverdue, ids: ids(overdue: overdue, oldestAge: oldestAge), texts: ["queue": queue.rawValue])
    }

    /// The stored message for `staff`, with the headers APNs wants; one collapse id per queue,
    /// so a phone shows the latest word on it.
    static func message(_ push: PushNotification, to staff: StaffMember, queue: ModerationQueue, bundleID: String, now: Date) -> OutboxMessage {
        let id = UUID().uuidString
        let headers = push.headers(messageID: id, bundleID: bundleID, collapseID: "queue-\(queue.rawValue)", now: now)
        let headerJSON = String(
            decoding: (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
        return OutboxMessage(
            id: id, actionId: nil, recipientUserId: staff.id, eventType: .queueOverdue, payload: push.payloadJSON(), headers: headerJSON,
            createdAt: now, expiresAt: push.expiration(now: now))
    }

    static func summary(overdue: Int, exact: Bool, oldestAge: TimeInterval, target: TimeInterval) -> String {
        let count = exact ? "\(overdue)" : "At least \(overdue)"
        return "\(count) waiting past the \(Self.target(target)) target; the oldest has waited \(age(oldestAge))."
    }

    /// A target as staff set it: "48 h", "1 h 30 min".
    static func target(_ interval: TimeInterval) -> String {
        let minutes = max(0, Int(interval / 60))
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// An age: "45 min", "5 h 10 min", "3 d 4 h".
    static func age(_ interval: TimeInterval) -> String {
        let minutes = max(0, Int(interval / 60))
        let days = minutes / 1_440
        let hours = minutes % 1_440 / 60
        if minutes < 60 { return "\(minutes) min" }
        if days == 0 { return minutes % 60 == 0 ? "\(hours) h" : "\(hours) h \(minutes % 60) min" }
        return hours == 0 ? "\(days) d" : "\(days) d \(hours) h"
    }

    private static func ids(overdue: Int, oldestAge: TimeInterval) -> [String: Int] {
        ["overdue_count": overdue, "oldest_age_seconds": Int(oldestAge)]
    }
}
