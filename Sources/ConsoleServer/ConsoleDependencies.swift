import BookCornersAPI
import Foundation
import Logging
import ModerationStore

/// Everything controllers need, built once at start-up and passed in.
struct ConsoleDependencies: Sendable {
    let configuration: ConsoleConfiguration
    let store: ModerationStore
    let client: BackendClient
    let cache: BackendReadCache
    let sessions: SessionManager
    let statusCheck: StaffStatusCheck
    // `var` so a test can render with its own templates.
    var renderer: PageRenderer
    let staticFiles: StaticFileLibrary
    let cookie: SessionCookie
    let throttle: SignInThrottle
    let runner: ActionRunner

    /// The backend as this request's staff member sees it.
    func backend(for context: ConsoleRequestContext) async throws -> StaffBackend {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        return StaffBackend(
            client: client, cache: cache, credentials: try await sessions.credentials(for: session),
            context: callContext(context))
    }

    /// Records an audit entry for a sign-in event; a failure to record is logged, never shown.
    func auditSession(_ action: String, outcome: String, actorId: Int?, username: String, context: ConsoleRequestContext, userAgent: String) {
        audit(action, targetKind: "session", targetName: "", outcome: outcome, actorId: actorId, username: username, context: context, userAgent: userAgent)
    }

    /// Records something the signed-in staff member did that is not a decision (an export, …).
    func auditStaff(_ action: String, targetKind: String, targetName: String, context: ConsoleRequestContext, userAgent: String) {
        audit(
            action, targetKind: targetKind, targetName: targetName, outcome: "succeeded", actorId: context.session?.staffId,
            username: context.session?.username ?? "", context: context, userAgent: userAgent)
    }

    private func audit(
        _ action: String, targetKind: String, targetName: String, outcome: String, actorId: Int?, username: String,
        context: ConsoleRequestContext, userAgent: String
    ) {
        let entry = AuditEntry(
            recordedAt: Date(), actorId: actorId, actorUsername: username, action: action, targetKind: targetKind, targetId: "",
            targetSlug: "", targetName: targetName, statusBefore: "", statusAfter: "", reason: "", outcome: outcome, backendStatus: nil,
            requestId: context.requestID, clientAddress: context.clientAddress, userAgent: String(userAgent.prefix(300)),
            itemCreatedAt: nil, actionId: nil)
        do {
            try store.appendAudit(entry)
        } catch {
            context.logger.error("audit entry not written", metadata: ["error": "\(error)", "action": "\(action)"])
        }
    }

    func callContext(_ context: ConsoleRequestContext) -> CallContext {
        CallContext(requestID: context.requestID, forwardedFor: configuration.forwardClientAddress ? context.clientAddress : nil)
    }
}
