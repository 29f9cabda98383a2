import BookCornersAPI
import Foundation
import Logging
import ServiceLifecycle

/// Keeps readiness honest when nobody is signed in and the mirror waits: looks every
/// `interval` (a quarter of readiness's silence limit) and, if the backend has not been heard
/// from for twice that, asks it for its public statistics (one read of the `api-statistics`
/// scope, no session). At the default 120-s limit that is at most 5 of that scope's 60 reads
/// per window, and none while other calls keep the backend heard from.
struct BackendContactProbe: Service {
    let client: BackendClient
    let backend: BackendCallMetrics
    let interval: TimeInterval
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: .milliseconds(Int(interval * 1000))) {
            if let last = backend.lastAnswerAt, Date().timeIntervalSince(last) < 2 * interval { return }
            do {
                _ = try await client.statistics()
            } catch {
                logger.debug("backend contact probe had no good answer", metadata: ["error": "\(error)"])
            }
        }
    }
}
