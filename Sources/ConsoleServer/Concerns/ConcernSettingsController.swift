import Foundation
import Hummingbird
import ModerationStore

/// The reasons page (`/reasons`): what each reason caught, and the thresholds and suspect
/// words staff tune there. Every change is audited with it, naming what changed.
struct ConcernSettingsController {
    let store: ModerationStore
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter
    /// Asks the refresher for a pass at once after a change, for the filter by reason.
    let nudge: ConcernRefreshNudge

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.concernFigures.pattern) { request, context in
            try await page(request: request, context: context)
        }
        router.post(SiteURL.Route.concernSettings.pattern, use: save)
    }

    /// The page; with a problem, the form shows what was typed (nothing lost) and the page answers 400.
    private func page(
        request: Request, context: ConsoleRequestContext, problem: String? = nil, typed: ConcernSettingsForm? = nil
    ) async throws
        -> Response
    {
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        let now = Date()
        let settings = try await store.concernSettings()
        var page = ConcernFiguresPage(
            layout: LayoutModel(context: context, title: "Reasons to look", active: .libraries, summary: summary, status: status),
            figures: try await store.concernFigures(since: now.addingTimeInterval(-Double(ConcernFiguresPage.days) * 86_400)),
            settings: settings, firstRecorded: try await store.firstDecidedConcernRecordedAt(), now: now)
        if let problem, let typed { page.showsProblem(problem, typed: typed) }
        var response = try renderer.render(page, with: "concern-figures").response(from: request, context: context)
        if problem != nil { response.status = .badRequest }
        return response
    }

    @Sendable func save(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        let form = try await request.decodeForm(as: ConcernSettingsForm.self, context: context)
        let current = try await store.concernSettings()
        let wanted: ConcernSettings
        switch ConcernSettingsInput.settings(from: form) {
        case .failure(let problem):
            return try await page(request: request, context: context, problem: problem.message + " Nothing was changed.", typed: form)
        case .success(let settings):
            wanted = settings
        }
        guard form.seen == ConcernSettingsInput.seen(current) else {
            return try await page(
                request: request, context: context,
                problem: "Someone changed these settings while you were editing: the rules above now show theirs. Nothing of yours was saved; "
                    + "your entries are still in the form. Compare, then save again to put yours in place of theirs.", typed: form)
        }
        let changes = wanted.changes(from: current)
        guard !changes.isEmpty else {
            try await sessions.flash("Nothing to save: the settings were already these.", sessionID: session.id)
            return .redirect(to: SiteURL.concernFigures.path + "#settings", type: .normal)
        }
        let entry = audit.staffEntry(
            "concernSettings.update", targetKind: "concernSettings", targetId: "reasons", targetName: "Reasons to look",
            reason: changes.joined(separator: "\n"), context: context, userAgent: request.userAgent)
        guard try await store.setConcernSettings(wanted, expected: current, audit: entry, now: Date()) else {
            return try await page(
                request: request, context: context,
                problem: "Someone changed these settings at the same moment: nothing of yours was saved. Your entries are in the form below.",
                typed: form)
        }
        nudge.nudge()
        try await sessions.flash(
            "Saved: \(changes.joined(separator: "; ")). Lists show the new reasons at once; the filter by reason follows within seconds.",
            sessionID: session.id)
        return .redirect(to: SiteURL.concernFigures.path + "#settings", type: .normal)
    }
}
