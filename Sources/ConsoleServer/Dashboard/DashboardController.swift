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
    /// Forwarding headers from a proxy nobody named: said on the dashboard for whoever runs it.
    let untrustedForwarding: UntrustedForwarding
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
        let page = try await annotated(
            DashboardPage(
                layout: LayoutModel(context: context, title: "Dashboard", active: .dashboard, summary: summary, status: status),
                summary: summary.map(DashboardPage.Counts.init),
                queues: [
                    DashboardPage.Queue(
                        title: "Library submissions", kind: .library, href: SiteURL.libraries.path, total: summary?.pendingLibrariesCount,
                        items: libraries.map {
                            .init(
                                item: .init(kind: .library, key: $0.slug),
                                label: LibraryText.displayName($0.name), detail: LibraryText.place(city: $0.city, country: $0.country),
                                href: SiteURL.library($0.slug).path, age: TimeText.age(of: $0.createdAt, now: now),
                                mark: QueueStandingMark(.libraries, createdAt: $0.createdAt, targets: targets, now: now))
                        }),
                    DashboardPage.Queue(
                        title: "Open reports", kind: .report, href: SiteURL.reports.path, total: summary?.openReportsCount,
                        items: reports.map {
                            .init(
                                item: .init(kind: .report, key: String($0.id)),
                                label: LibraryText.displayName($0.libraryName), detail: $0.reason.label,
                                href: SiteURL.report($0.id).path, age: TimeText.age(of: $0.createdAt, now: now),
                                mark: QueueStandingMark(.reports, createdAt: $0.createdAt, targets: targets, now: now))
                        }),
                    DashboardPage.Queue(
                        title: "Community photos", kind: .photo, href: SiteURL.photos.path, total: summary?.pendingPhotosCount,
                        items: photos.map {
                            .init(
                                item: .init(kind: .photo, key: String($0.id)),
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
                handoff: handoff, forwardingWarning: untrustedForwarding.warning), viewer: context.session?.staffId, schedule: context.sendSchedule,
            now: now)
        return try renderer.render(page, with: "dashboard")
    }

    /// `page` with each item's note as the lists would show it on load (the stream keeps it true after).
    private func annotated(_ page: DashboardPage, viewer: Int?, schedule: SendSchedule, now: Date) async throws -> DashboardPage {
        var page = page
        for index in page.queues.indices {
            let items = page.queues[index].items
            let targets = items.map(\.target)
            guard let kind = targets.first?.kind else { continue }
            let keys = targets.map(\.key)
            let claims = try await store.activeClaims(kind: kind, keys: keys, now: now)
            let queued = await schedule.shown(byKey: try store.unfinishedDecisions(kind: kind, keys: keys), store: store, now: now)
            page.queues[index].items = zip(items, targets).map { item, target in
                var item = item
                if let action = queued[target.key] {
                    let note = QueuedDecisionNote(action, viewerId: viewer, now: now)
                    item.note = "\(note.text), \(note.when)\(note.hasTime ? " \(note.timeText)" : "")"
                } else if let claim = claims[target.key], claim.holderId != viewer {
                    item.note = "\(claim.holderUsername) is reviewing · \(claim.minutesLeft(at: now)) min left"
                    item.claimEnds = TimeText.iso(claim.expiresAt)
                    item.claimHolder = claim.holderUsername
                }
                return item
            }
        }
        return page
    }
}
