import Foundation
import ModerationStore
import Mustache

/// One overdue episode as the alerts page and the dashboard's Alerts panel show it.
struct AlertEpisodeRow: MustacheParent {
    /// One message of the episode: who was told, when, and why.
    struct Notice: MustacheParent {
        let kind: String
        let who: String
        let when: TeamTime

        func child(named key: String) -> Any? {
            switch key {
            case "kind": kind
            case "who": who
            case "when": when
            default: nil
            }
        }
    }

    let id: Int64
    let queueLabel: String
    let state: String
    let stateLabel: String
    let opened: TeamTime
    let closed: TeamTime
    let isClosed: Bool
    /// "12 past the 48 h target; the oldest had waited 3 d 4 h."
    let standing: String
    let notices: [Notice]
    /// Nobody was on call when it opened (or since): nobody has been told.
    let nobodyTold: Bool
    let holder: String
    let acknowledgement: String
    let isAcknowledged: Bool
    let canAcknowledge: Bool
    /// The signed-in staff member is the one it waits for: their button stands out.
    let isMine: Bool
    let acknowledgeURL: String
    let escalations: Int

    init(_ alert: QueueAlert, notices: [QueueAlertNotice], viewerID: Int?, now: Date) {
        id = alert.id
        queueLabel = alert.queue.label
        state = alert.state.rawValue
        stateLabel = alert.state.label
        opened = TeamTime(alert.openedAt)
        closed = TeamTime(alert.closedAt)
        isClosed = alert.state == .closed
        let seenAt = alert.closedAt ?? now
        standing =
            "\(alert.overdueCount) past the \(QueueAlertNotification.target(TimeInterval(alert.targetMinutes * 60))) target; "
            + "the oldest \(alert.state == .closed ? "had" : "has") waited \(QueueAlertNotification.age(seenAt.timeIntervalSince(alert.oldestCreatedAt)))."
        self.notices = notices.map { notice in
            Notice(
                kind: notice.staffId == nil ? "Nobody on call to tell" : notice.kind.label, who: notice.staffUsername ?? "",
                when: TeamTime(notice.sentAt))
        }
        nobodyTold = alert.notifiedStaffId == nil
        holder = notices.last { $0.staffId == alert.notifiedStaffId && $0.staffId != nil }?.staffUsername ?? ""
        isAcknowledged = alert.acknowledgedAt != nil
        acknowledgement =
            alert.acknowledgedAt.map { "Acknowledged by \(alert.acknowledgedByUsername ?? "someone") at \(TeamClock.stamp($0))." }
            ?? (alert.state == .closed ? "Closed without an acknowledgement." : "Not acknowledged yet.")
        canAcknowledge = alert.state.awaitsAcknowledgement
        isMine = canAcknowledge && viewerID != nil && alert.notifiedStaffId == viewerID
        acknowledgeURL = SiteURL.onCallAlertAcknowledge(alert.id).path
        escalations = alert.escalationLevel
    }

    /// The episodes with their notices, as one read.
    static func load(_ alerts: [QueueAlert], store: ModerationStore, viewerID: Int?, now: Date) async throws -> [AlertEpisodeRow] {
        let notices = try await store.queueAlertNotices(alertIDs: alerts.map(\.id))
        return alerts.map { AlertEpisodeRow($0, notices: notices[$0.id] ?? [], viewerID: viewerID, now: now) }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "queueLabel": queueLabel
        case "state": state
        case "stateLabel": stateLabel
        case "opened": opened
        case "closed": closed
        case "isClosed": isClosed
        case "standing": standing
        case "notices": notices
        case "nobodyTold": nobodyTold
        case "holder": holder
        case "acknowledgement": acknowledgement
        case "isAcknowledged": isAcknowledged
        case "canAcknowledge": canAcknowledge
        case "isMine": isMine
        case "acknowledgeURL": acknowledgeURL
        case "escalations": escalations
        default: nil
        }
    }
}
