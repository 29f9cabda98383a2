import BookCornersAPI
import Foundation
import ModerationStore
import Mustache

/// The dashboard's model.
struct DashboardPage: MustacheParent {
    struct Counts: MustacheParent {
        let pendingLibraries: Int
        let openReports: Int
        let pendingPhotos: Int
        let totalPending: Int
        let totalLibraries: Int
        let totalUsers: Int
        let librariesURL = SiteURL.libraries.path
        let reportsURL = SiteURL.reports.path
        let photosURL = SiteURL.photos.path

        init(_ summary: ModerationSummary) {
            pendingLibraries = summary.pendingLibrariesCount
            openReports = summary.openReportsCount
            pendingPhotos = summary.pendingPhotosCount
            totalPending = summary.totalPending
            totalLibraries = summary.totalLibraries
            totalUsers = summary.totalUsers
        }

        func child(named key: String) -> Any? {
            switch key {
            case "pendingLibraries": pendingLibraries
            case "openReports": openReports
            case "pendingPhotos": pendingPhotos
            case "totalPending": totalPending
            case "totalLibraries": totalLibraries
            case "totalUsers": totalUsers
            case "librariesURL": librariesURL
            case "reportsURL": reportsURL
            case "photosURL": photosURL
            default: nil
            }
        }
    }

    struct Queue: MustacheParent {
        struct Item: MustacheParent {
            /// The item, for what open dashboards follow (`library:<slug>`, `report:<id>`).
            let target: ItemClaim.Target
            var item: String { "\(target.kind.rawValue):\(target.key)" }
            let label: String
            let detail: String
            let href: String
            let age: String
            /// Overdue or near its queue's target (On call: alerts).
            var mark = QueueStandingMark.none
            /// Someone else's claim or a decision on its way, as the lists say it; "" for none.
            var note = ""
            /// Who holds that claim and when it runs out (ISO 8601), for the page to count down; "" for none.
            var claimHolder = ""
            var claimEnds = ""

            init(item: ItemClaim.Target, label: String, detail: String, href: String, age: String, mark: QueueStandingMark = .none) {
                target = item
                self.label = label
                self.detail = detail
                self.href = href
                self.age = age
                self.mark = mark
            }

            func child(named key: String) -> Any? {
                switch key {
                case "item": item
                case "label": label
                case "detail": detail
                case "href": href
                case "age": age
                case "mark": mark
                case "note": note
                case "hasNote": !note.isEmpty
                case "claimEnds": claimEnds
                case "claimHolder": claimHolder
                default: nil
                }
            }
        }

        let title: String
        /// `library`, `report` or `photo`: which count open dashboards keep live.
        let kind: String
        let href: String
        // Never nil: a nil would send the template looking for `total` further up the context.
        let total: Int
        let hasTotal: Bool
        var items: [Item]
        /// Empty because the queue is empty, or because nothing is mirrored yet: never "Nothing
        /// waiting" before the first read.
        let nothingWaiting: Bool
        let notLoaded: Bool

        init(title: String, kind: ModerationAction.TargetKind, href: String, total: Int?, items: [Item]) {
            self.title = title
            self.kind = kind.rawValue
            self.href = href
            self.total = total ?? 0
            hasTotal = total != nil
            self.items = items
            nothingWaiting = items.isEmpty && total != nil
            notLoaded = items.isEmpty && total == nil
        }

        func child(named key: String) -> Any? {
            switch key {
            case "title": title
            case "kind": kind
            case "href": href
            case "total": total
            case "hasTotal": hasTotal
            case "items": items
            case "nothingWaiting": nothingWaiting
            case "notLoaded": notLoaded
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let summary: Counts?
    var queues: [Queue]
    /// `ok`, `down` (silent past the grace period) or `loading` (nothing mirrored yet): the dot's colour.
    let backendState: String
    let backendStatus: String
    let outside: OutsideChanges
    /// Empty while pushes reach people.
    let deliveryWarning: String
    let hasDeliveryWarning: Bool
    let outboxURL = SiteURL.outbox.path
    /// Empty unless requests come through a proxy that is not trusted (`UntrustedForwarding`).
    let forwardingWarning: String
    let hasForwardingWarning: Bool
    /// On call: the hand-off received, and the note for the next person.
    let handoff: HandoffPanel
    /// What to do first: the item waiting longest, or that nothing waits.
    var nextStep: NextStep { NextStep(queues: queues) }
    /// On call: the overdue episodes under way, each with its Acknowledge button.
    let alerts: [AlertEpisodeRow]
    let hasAlerts: Bool
    let alertCount: Int
    let alertsURL = SiteURL.onCallAlerts.path
    /// Where an Acknowledge button sends the browser back to.
    let returnTo = AcknowledgeForm.ReturnTo.dashboard.rawValue

    init(
        layout: LayoutModel, summary: Counts?, queues: [Queue], backendState: String, backendStatus: String, outside: OutsideChanges,
        alerts: [AlertEpisodeRow] = [], deliveryWarning: String?, handoff: HandoffPanel = .empty, forwardingWarning: String? = nil
    ) {
        self.forwardingWarning = forwardingWarning ?? ""
        hasForwardingWarning = forwardingWarning != nil
        self.handoff = handoff
        self.layout = layout
        self.summary = summary
        self.queues = queues
        self.backendState = backendState
        self.backendStatus = backendStatus
        self.outside = outside
        self.alerts = alerts
        hasAlerts = !alerts.isEmpty
        alertCount = alerts.count
        self.deliveryWarning = deliveryWarning ?? ""
        hasDeliveryWarning = deliveryWarning != nil
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "summary": summary
        case "queues": queues
        case "nextStep": nextStep
        case "backendState": backendState
        case "backendStatus": backendStatus
        case "outside": outside
        case "deliveryWarning": deliveryWarning
        case "hasDeliveryWarning": hasDeliveryWarning
        case "forwardingWarning": forwardingWarning
        case "hasForwardingWarning": hasForwardingWarning
        case "outboxURL": outboxURL
        case "handoff": handoff
        case "alerts": alerts
        case "hasAlerts": hasAlerts
        case "alertCount": alertCount
        case "alertsURL": alertsURL
        case "returnTo": returnTo
        default: nil
        }
    }
}
