import BookCornersAPI

/// Opens the backend as a request's staff member: their stored credentials, unsealed.
struct StaffBackendFactory: Sendable {
    let client: BackendClient
    let cache: BackendReadCache
    let sessions: SessionManager
    /// Whether the staff member's address goes to the backend as `X-Forwarded-For`.
    let forwardClientAddress: Bool

    /// The backend as this request's staff member sees it.
    func backend(for context: ConsoleRequestContext) async throws -> StaffBackend {
        guard let session = context.session else { throw ConsoleError.backend(.sessionExpired) }
        return StaffBackend(
            client: client, cache: cache, credentials: try await sessions.credentials(for: session),
            context: context.callContext(forwardClientAddress: forwardClientAddress))
    }
}
