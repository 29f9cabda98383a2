import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// The first page after sign-in: what waits and for how long, read from the mirror.
struct DashboardController {
    let store: ModerationStore
    let renderer: PageRenderer
    let delivery: OutboxDeliveryOverview
    /// How many of each queue's oldest items the dashboard lists.
    private static let oldestShown = 5

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.dashboard.pattern, use: show)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        var status = PageStatus()
        status.freshnessGoal = MirrorPageData.queueFreshnessGoal
        let summary = try await MirrorPageData.summary(store, status: &status)
        let libraries = try await store.oldestMirroredLibraries(status: .pending, count: Self.oldestShown)
        let reports = try await store.oldestMirroredReports(status: .open, count: Self.oldestShown)
        let photos = try await store.oldestMirroredPhotos(status: .pending, count: Self.oldestShown)
        let now = Date()
        let targets = try await store.queueTargets()
        let alerts = try await AlertEpisodeRow.load(try store.activeQueueAlerts(), store: store, viewerID: context.session?.staffId, now: now)
        var handoff = HandoffPanel.empty
        if let session = context.session { handoff = try await HandoffPanel.load(from: store, staffID: session.staffId, now: now) }
        let page = DashboardPage(
            layout: LayoutModel(context: context, title: "Dashboard", active: .dashboard, summary: summary, status: status),
            summary: summary.map(DashboardPage.Counts.init),
            queues: [
                DashboardPage.Queue(
                    title: "Library submissions", href: SiteURL.libraries.path, total: summary?.pendingLibrariesCount,
                    items: libraries.map {
                        .init(
                            label: LibraryText.displayName($0.name), detail: LibraryText.place(city: $0.city, country: $0.country),
                            href: SiteURL.library($0.slug).path, age: TimeText.age(of: $0.createdAt, now: now),
                            mark: QueueStandingMark(.libraries, createdAt: $0.createdAt, targets: targets, now: now))
                    }),
                DashboardPage.Queue(
                    title: "Open reports", href: SiteURL.reports.path, total: summary?.openReportsCount,
                    items: reports.map {
                        .init(
                            label: LibraryText.displayName($0.libraryName), detail: $0.reason.label,
                            href: SiteURL.report($0.id).path, age: TimeText.age(of: $0.createdAt, now: now),
                            mark: QueueStandingMark(.reports, createdAt: $0.createdAt, targets: targets, now: now))
                    }),
                DashboardPage.Queue(
                    title: "Community photos", href: SiteURL.photos.path, total: summary?.pendingPhotosCount,
                    items: photos.map {
                        .init(
                            label: LibraryText.displayName($0.libraryName), detail: $0.caption,
                            href: SiteURL.library($0.librarySlug).path, age: TimeText.age(of: $0.createdAt, now: now),
                            mark: QueueStandingMark(.photos, createdAt: $0.createdAt, targets: targets, now: now))
                    }),
            ],
            backendState: status.backendSilentSince != nil ? "down" : summary == nil ? "loading" : "ok",
            backendStatus: status.freshness.map { "\($0)." } ?? "The console is still loading Book Corners' data.",
            outside: try await OutsideChanges.load(from: store, now: now), alerts: alerts,
            deliveryWarning: await DeliveryWarning.text(
                health: try store.outboxHealth(since: now.addingTimeInterval(-DeliveryWarning.window)), isOff: delivery.isOff),
            handoff: handoff)
        return try renderer.render(page, with: "dashboard")
    }
}

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
            let label: String
            let detail: String
            let href: String
            let age: String
            /// Overdue or near its queue's target (On call: alerts).
            var mark = QueueStandingMark.none

            func child(named key: String) -> Any? {
                switch key {
                case "label": label
                case "detail": detail
                case "href": href
                case "age": age
                case "mark": mark
                default: nil
                }
            }
        }

        let title: String
        let href: String
        // Never nil: a nil would send the template looking for `total` further up the context.
        let total: Int
        let hasTotal: Bool
        let items: [Item]
        /// Empty because the queue is empty, or because nothing is mirrored yet: never "Nothing
        /// waiting" before the first read.
        let nothingWaiting: Bool
        let notLoaded: Bool

        init(title: String, href: String, total: Int?, items: [Item]) {
            self.title = title
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
    let queues: [Queue]
    /// `ok`, `down` (silent past the grace period) or `loading` (nothing mirrored yet): the dot's colour.
    let backendState: String
    let backendStatus: String
    let outside: OutsideChanges
    /// Empty while pushes reach people.
    let deliveryWarning: String
    let hasDeliveryWarning: Bool
    let outboxURL = SiteURL.outbox.path
    /// On call: the hand-off received, and the note for the next person.
    let handoff: HandoffPanel
    /// On call: the overdue episodes under way, each with its Acknowledge button.
    let alerts: [AlertEpisodeRow]
    let hasAlerts: Bool
    let alertCount: Int
    let alertsURL = SiteURL.onCallAlerts.path
    /// Where an Acknowledge button sends the browser back to.
    let returnTo = AcknowledgeForm.ReturnTo.dashboard.rawValue

    init(
        layout: LayoutModel, summary: Counts?, queues: [Queue], backendState: String, backendStatus: String, outside: OutsideChanges,
        alerts: [AlertEpisodeRow] = [], deliveryWarning: String?, handoff: HandoffPanel = .empty
    ) {
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
        case "backendState": backendState
        case "backendStatus": backendStatus
        case "outside": outside
        case "deliveryWarning": deliveryWarning
        case "hasDeliveryWarning": hasDeliveryWarning
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
