import BookCornersAPI
import Foundation
import Logging
import ServiceLifecycle

/// Keeps readiness honest when nobody is signed in and the mirror waits: if the backend has
/// not been heard from for `interval`, asks it for its public statistics (one read of the
/// `api-statistics` scope). At the default interval that is at most 10 of that scope's 60
/// reads per window, and none while other calls keep the backend heard from.
struct BackendContactProbe: Service {
    let client: BackendClient
    let backend: BackendCallMetrics
    let interval: TimeInterval
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: .milliseconds(Int(interval * 1000))) {
            if let last = backend.lastAnswerAt, Date().timeIntervalSince(last) < interval { return }
            do {
                _ = try await client.statistics()
            } catch {
                logger.debug("backend contact probe had no good answer", metadata: ["error": "\(error)"])
            }
        }
    }
}
