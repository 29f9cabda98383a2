import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// Shows a decision form kept when its session had ended, filled in as it was sent, to send
/// again with one click: a normal POST with this session's CSRF token. Looking at it spends
/// nothing (a link prefetch must not use it up): the POST that sends it (`KeptFormSpending`)
/// or discards it does. Never replayed by the console itself.
struct UnsentWorkController {
    let unsent: UnsentWork
    let renderer: PageRenderer
    let sessions: StaffSessions

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.unsentWork.pattern, use: show)
        router.post(SiteURL.Route.unsentWorkDiscard.pattern, use: discard)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        guard let key = SiteURL.Route.unsentWork.value(in: context.parameters), !key.isEmpty, key.count <= 100 else { throw ConsoleError.notFound }
        let layout = LayoutModel(context: context, title: "Send your decision", active: nil, summary: nil)
        guard let staffId = context.session?.staffId,
            let form = try await unsent.store.keptForm(id: RandomToken.digest(key), ownerStaffId: staffId, now: Date()),
            UnsentWork.isDecisionPath(form.path)
        else {
            return try renderer.render(UnsentWorkPage.gone(layout: layout), with: "unsent-work", status: .notFound)
        }
        return try await renderer.render(UnsentWorkPage(layout: layout, form: form, key: key, summary: unsent.summary(of: form)), with: "unsent-work")
    }

    /// "Do not send": the kept form is dropped, and the person goes back where the form was sent from.
    @Sendable func discard(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let key = SiteURL.Route.unsentWorkDiscard.value(in: context.parameters), !key.isEmpty, key.count <= 100 else { throw ConsoleError.notFound }
        _ = try await request.decodeForm(as: CSRFForm.self, context: context)
        let id = RandomToken.digest(key)
        let form = try await unsent.store.keptForm(id: id, ownerStaffId: session.staffId, now: Date())
        let discarded = try await unsent.store.spendKeptForm(id: id, ownerStaffId: session.staffId)
        try await sessions.flash(
            discarded ? "Not sent: your kept decision was discarded, and nothing was recorded." : "That kept decision was no longer there; nothing was sent.",
            sessionID: session.id)
        let back = form.map { form in SafeRedirect.path(form.fields.first { $0.name == "back" }?.value) } ?? SiteURL.dashboard.path
        return .redirect(to: back, type: .normal)
    }
}
