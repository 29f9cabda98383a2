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
    let renderer: PageRenderer
    let cookie: SessionCookie
    let throttle: SignInThrottle

    /// The backend as this request's staff member sees it.
    func backend(for context: ConsoleRequestContext) async throws -> StaffBackend {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        return StaffBackend(
            client: client, cache: cache, credentials: try await sessions.credentials(for: session),
            context: callContext(context))
    }

    func callContext(_ context: ConsoleRequestContext) -> CallContext {
        CallContext(requestID: context.requestID, forwardedFor: configuration.forwardClientAddress ? context.clientAddress : nil)
    }
}
