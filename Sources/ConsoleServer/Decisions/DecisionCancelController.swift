import Foundation
import Hummingbird
import ModerationStore

/// `POST /decisions/:id/cancel`: the author takes back a decision before it is sent (audited
/// `decision.cancel`). Refused in words once a runner has begun sending it, since the change
/// may then already be on its way to Book Corners.
struct DecisionCancelController {
    let store: ModerationStore
    let sessions: StaffSessions
    let audit: StaffAuditWriter

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.post(SiteURL.Route.decisionCancel.pattern, use: cancel)
    }

    @Sendable func cancel(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        var request = request
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        guard let id = SiteURL.Route.decisionCancel.value(in: context.parameters).flatMap({ Int64($0) }) else { throw HTTPError(.notFound) }
        let form = try await request.decodeForm(as: ClaimForm.self, context: context)
        // Back to the page the panel was on (the form has no field for it: the frame does not know its page).
        let referer = request.headers[.referer].flatMap { URLComponents(string: $0) }.map {
            $0.percentEncodedPath + ($0.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        let back = SafeRedirect.path(form.back ?? referer ?? SiteURL.dashboard.path)
        guard let action = try await store.action(id: id), action.actorId == session.staffId else { throw HTTPError(.notFound) }
        let names = try await store.targetNames(of: [action])
        let name = names[DecisionTargetName.key(action.targetKind, action.targetKey)].map { LibraryText.displayName($0.name) } ?? action.targetKey
        let what = "\(LayoutModel.PendingActionItem.verb(kind: action.targetKind, wanted: action.statusWanted)) \(name)"
        let entry = audit.staffEntry(
            "decision.cancel", targetKind: action.targetKind.rawValue, targetId: action.targetKey, targetName: name,
            statusBefore: action.statusSeen.rawValue, statusAfter: action.statusSeen.rawValue, context: context,
            userAgent: String(request.userAgent.prefix(300)))
        let message: String
        do {
            try await store.cancel(id, actorId: session.staffId, audit: entry, now: Date())
            message = "Cancelled: \(what) was not sent, and nothing changed at Book Corners."
        } catch ActionStoreError.notCancellable(let current) {
            switch current {
            case .sending?: message = "Too late to cancel: \(what) is being sent to Book Corners now. Its outcome shows under Pending actions."
            case .waiting?, .parked?:
                message =
                    "Too late to cancel: \(what) may already have reached Book Corners (an earlier try got no answer). The console checks before sending it again; its outcome shows under Pending actions."
            case .applied?: message = "Too late to cancel: \(what) has already been applied at Book Corners."
            case .cancelled?: message = "\(what) was already cancelled."
            default: message = "\(what) has already ended: \(action.outcomeMessage ?? "see Pending actions")."
            }
        }
        try await sessions.flash(message, sessionID: session.id)
        return .redirect(to: back, type: .normal)
    }
}
