import BookCornersAPI

extension BackendClient {
    /// Runs `body` with `client`, then shuts the client down whether `body` returned or threw:
    /// a client dropped without `shutdown()` stops the whole test process, so one failing
    /// test would take every other test's result with it.
    public static func closing<Result: Sendable>(
        _ client: BackendClient, _ body: (BackendClient) async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            result = try await body(client)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }
}
