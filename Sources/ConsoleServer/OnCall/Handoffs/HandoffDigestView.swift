import Foundation
import ModerationStore
import Mustache

/// A stored digest as pages show it: plain, already formatted values. Every field has a value
/// (swift-mustache would look a missing one up in the page around it).
struct HandoffDigestView: MustacheParent {
    struct Count: MustacheParent {
        let label: String
        let count: Int

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "count": count
            default: nil
            }
        }
    }

    struct Item: MustacheParent {
        let label: String
        let detail: String
        let href: String
        let age: String
        let overdue: Bool

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "detail": detail
            case "href": href
            case "age": age
            case "overdue": overdue
            default: nil
            }
        }
    }

    struct Queue: MustacheParent {
        let title: String
        let waiting: Int
        let overdueCount: Int
        let target: String
        let items: [Item]
        let nothingWaiting: Bool

        func child(named key: String) -> Any? {
            switch key {
            case "title": title
            case "waiting": waiting
            case "overdueCount": overdueCount
            case "target": target
            case "items": items
            case "nothingWaiting": nothingWaiting
            default: nil
            }
        }
    }

    struct Alert: MustacheParent {
        let queue: String
        let opened: String
        /// "acknowledged by bob at 2026-11-23 09:12", or "not acknowledged".
        let acknowledgement: String
        let acknowledged: Bool
        let escalated: Bool
        /// "closed 2026-11-23 10:00", or "still open".
        let closing: String

        func child(named key: String) -> Any? {
            switch key {
            case "queue": queue
            case "opened": opened
            case "acknowledgement": acknowledgement
            case "acknowledged": acknowledged
            case "escalated": escalated
            case "closing": closing
            default: nil
            }
        }
    }

    struct Change: MustacheParent {
        let label: String
        let change: String
        let href: String
        let seen: String

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "change": change
            case "href": href
            case "seen": seen
            default: nil
            }
        }
    }

    /// "14 decisions, 9 waiting (2 overdue)".
    let summary: String
    let decisionCount: Int
    let byKind: [Count]
    let byPerson: [Count]
    let hasDecisions: Bool
    let queues: [Queue]
    let queuesKnown: Bool
    let alerts: [Alert]
    let hasAlerts: Bool
    let changes: [Change]
    let changeCount: Int
    let hasChanges: Bool
    let moreChanges: Int
    let hasMoreChanges: Bool
    let noteText: String
    let noteAuthor: String
    let noteWritten: String
    let hasNote: Bool

    init(_ digest: HandoffDigest) {
        func time(_ date: Date) -> String { TeamClock.current.stamp(date) }
        summary = Self.summary(digest)
        decisionCount = digest.decisionCount
        byKind = digest.decisionsByKind.map { Count(label: HandoffDigest.label(forAction: $0.key, count: $0.count), count: $0.count) }
        byPerson = digest.decisionsByPerson.map { Count(label: $0.key, count: $0.count) }
        hasDecisions = !digest.decisionsByKind.isEmpty
        queues = (digest.queues ?? []).map { queue in
            Queue(
                title: queue.queue.label, waiting: queue.waiting, overdueCount: queue.overdue,
                target: ZonedTimeText.duration(minutes: queue.targetMinutes),
                items: queue.oldest.map {
                    Item(
                        label: $0.label, detail: $0.detail, href: SiteURL.library($0.librarySlug).path,
                        age: ZonedTimeText.age(from: $0.createdAt, to: digest.asOf), overdue: $0.overdue)
                },
                nothingWaiting: queue.oldest.isEmpty)
        }
        queuesKnown = digest.queues != nil
        alerts = digest.alerts.map { alert in
            let acknowledgement = alert.acknowledgedAt.map { "acknowledged by \(alert.acknowledgedBy ?? "someone") at \(time($0))" }
            return Alert(
                queue: alert.queue.label, opened: time(alert.openedAt), acknowledgement: acknowledgement ?? "not acknowledged",
                acknowledged: acknowledgement != nil, escalated: alert.escalated, closing: alert.closedAt.map { "closed \(time($0))" } ?? "still open")
        }
        hasAlerts = !digest.alerts.isEmpty
        changes = digest.outsideChanges.map {
            Change(label: $0.label, change: $0.change, href: SiteURL.auditEntry($0.auditEntryID).path, seen: time($0.recordedAt))
        }
        changeCount = digest.outsideChangeCount
        hasChanges = !digest.outsideChanges.isEmpty
        moreChanges = max(0, digest.outsideChangeCount - digest.outsideChanges.count)
        hasMoreChanges = moreChanges > 0
        noteText = digest.note?.text ?? ""
        noteAuthor = digest.note?.author ?? ""
        noteWritten = digest.note.map { time($0.writtenAt) } ?? ""
        hasNote = digest.note != nil
    }

    static func summary(_ digest: HandoffDigest) -> String {
        let decisions = CountText.of(digest.decisionCount, "decision", "decisions")
        guard digest.queues != nil else { return decisions }
        return "\(decisions), \(digest.waitingCount) waiting (\(digest.overdueCount) overdue)"
    }

    func child(named key: String) -> Any? {
        switch key {
        case "summary": summary
        case "decisionCount": decisionCount
        case "byKind": byKind
        case "byPerson": byPerson
        case "hasDecisions": hasDecisions
        case "queues": queues
        case "queuesKnown": queuesKnown
        case "alerts": alerts
        case "hasAlerts": hasAlerts
        case "changes": changes
        case "changeCount": changeCount
        case "hasChanges": hasChanges
        case "moreChanges": moreChanges
        case "hasMoreChanges": hasMoreChanges
        case "noteText": noteText
        case "noteAuthor": noteAuthor
        case "noteWritten": noteWritten
        case "hasNote": hasNote
        default: nil
        }
    }
}
