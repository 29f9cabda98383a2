import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

extension BackendClient: Service {
    /// Keeps the client alive until graceful shutdown, then closes its connections.
    public func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }
}
