import Foundation
import Hummingbird
import ModerationStore

/// Alerts & targets (`/on-call/alerts`): queue targets staff may change, the overdue episodes
/// with their Acknowledge button, and the history. Every change is audited with it.
struct AlertsController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter
    /// The watcher's settings, for the page to say how it works; `nil` when it is off.
    let watcher: OnCallWatcherConfiguration?

    /// Targets staff may set, in hours: one hour to 30 days.
    static let targetHours = 1...(QueueTargets.maxMinutes / 60)
    /// Episodes the history lists.
    static let historyShown = 50

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.onCallAlerts.pattern) { request, context in
            try await page(context: context, request: request)
        }
        router.post(SiteURL.Route.onCallTarget.pattern, use: setTarget)
        router.post(SiteURL.Route.onCallAlertAcknowledge.pattern, use: acknowledge)
    }

    private func page(context: ConsoleRequestContext, request: Request, problem: String? = nil) async throws -> Response {
        let now = Date()
        let viewer = context.session?.staffId
        let active = try await store.activeQueueAlerts()
        let history = try await store.recentQueueAlerts(limit: Self.historyShown)
        let page = await AlertsPage(
            layout: LayoutModel(context: context, title: "Alerts & targets", active: .onCall, summary: try MirrorPageData.navigationCounts(store)),
            subnav: OnCallSubnav.links(current: .alerts), targets: AlertsPage.targets(try store.queueTargets()),
            problem: problem ?? "", hasProblem: problem != nil,
            active: try AlertEpisodeRow.load(active, store: store, viewerID: viewer, now: now), hasActive: !active.isEmpty,
            history: try AlertEpisodeRow.load(history, store: store, viewerID: viewer, now: now), hasHistory: !history.isEmpty,
            watcher: AlertsPage.watcherText(watcher))
        var response = try renderer.render(page, with: "on-call-alerts").response(from: request, context: context)
        if problem != nil { response.status = .badRequest }
        return response
    }

    @Sendable func setTarget(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: QueueTargetForm.self, context: context)
        guard let queue = form.queue.flatMap(ModerationQueue.init(rawValue:)) else {
            return try await page(context: context, request: request, problem: "Choose one of the three queues. No target was changed.")
        }
        let text = (form.hours ?? "").trimmingCharacters(in: .whitespaces)
        guard let hours = Int(text), Self.targetHours.contains(hours) else {
            return try await page(
                context: context, request: request,
                problem: "A target is a whole number of hours from \(Self.targetHours.lowerBound) to \(Self.targetHours.upperBound). "
                    + "\(queue.label) keeps its target.")
        }
        let before = try await store.queueTargets().minutes(queue)
        let entry = audit.staffEntry(
            "queueTarget.update", targetKind: "queue", targetId: queue.rawValue, targetName: queue.label,
            statusBefore: QueueAlertNotification.target(TimeInterval(before * 60)), statusAfter: "\(hours) h", context: context,
            userAgent: request.userAgent)
        try await store.setQueueTarget(queue, minutes: hours * 60, audit: entry, now: Date())
        try await sessions.flash("\(queue.label): items now count as overdue after \(hours) h.", sessionID: session.id)
        return .redirect(to: SiteURL.onCallAlerts.path, type: .normal)
    }

    @Sendable func acknowledge(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let text = SiteURL.Route.onCallAlertAcknowledge.value(in: context.parameters), let id = Int64(text) else { throw ConsoleError.notFound }
        let form = try await request.decodeForm(as: AcknowledgeForm.self, context: context)
        let returnTo = form.returnTo.flatMap(AcknowledgeForm.ReturnTo.init(rawValue:)) == .dashboard ? SiteURL.dashboard : SiteURL.onCallAlerts
        guard let alert = try await store.queueAlert(id: id) else { throw ConsoleError.notFound }
        let entry = audit.staffEntry(
            "alert.acknowledge", targetKind: "queueAlert", targetId: String(id), targetName: alert.queue.label,
            statusBefore: alert.state.rawValue, statusAfter: QueueAlert.State.acknowledged.rawValue, context: context,
            userAgent: request.userAgent)
        let outcome = try await store.acknowledgeQueueAlert(
            id: id, by: StaffMember(id: session.staffId, username: session.username), audit: entry, now: Date())
        let message: String
        switch outcome {
        case .acknowledged(let alert):
            message = "Acknowledged: \(alert.queue.label) overdue. It will not escalate; reminders come to you while it lasts."
        case .alreadyAcknowledged(let alert):
            let who = alert.acknowledgedById == session.staffId ? "you" : (alert.acknowledgedByUsername ?? "someone")
            message =
                "\(alert.queue.label) overdue was already acknowledged by \(who)\(alert.acknowledgedAt.map { " at \(TeamClock.stamp($0))" } ?? ""). Nothing changed."
        case .alreadyClosed(let alert):
            message =
                "\(alert.queue.label) is back under target\(alert.closedAt.map { " since \(TeamClock.stamp($0))" } ?? ""): that alert is closed, nothing to acknowledge."
        case .notFound:
            throw ConsoleError.notFound
        }
        try await sessions.flash(message, sessionID: session.id)
        return .redirect(to: returnTo.path, type: .normal)
    }
}
