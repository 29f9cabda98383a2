/// One staff member's backend tokens. When several calls meet the same expired access
/// token at once, they share a single refresh (single flight) instead of each spending
/// one of the backend's 15 refreshes per window.
public actor StaffCredentials {
    public private(set) var accessToken: String
    public let refreshToken: String
    private var refreshing: Task<String, any Error>?
    private let onRefresh: @Sendable (String) async -> Void

    /// `onRefresh` receives each new access token, so the owner can store it.
    public init(accessToken: String, refreshToken: String, onRefresh: @escaping @Sendable (String) async -> Void = { _ in }) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.onRefresh = onRefresh
    }

    /// A fresh access token to replace `rejected`. If another call already replaced it,
    /// answers the newer token without refreshing again.
    func replace(
        rejected: String, using refresh: @escaping @Sendable (String) async throws(BackendError) -> String
    ) async throws(BackendError) -> String {
        if accessToken != rejected { return accessToken }
        let task: Task<String, any Error>
        if let refreshing {
            task = refreshing
        } else {
            let refreshToken = refreshToken
            task = Task { try await refresh(refreshToken) }
            refreshing = task
        }
        do {
            let token = try await task.value
            if refreshing == task {
                refreshing = nil
                accessToken = token
                await onRefresh(token)
            }
            return token
        } catch {
            if refreshing == task { refreshing = nil }
            throw (error as? BackendError) ?? .sessionExpired
        }
    }
}
