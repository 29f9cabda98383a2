import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Runs an application on a real loopback socket for the duration of `body`, then shuts
/// it down gracefully. `makeApplication` receives the callback that learns the bound port
/// (pass port 0 to the builder to get a free one). An application on a fixed port that
/// the kernel still holds (a restart right after a stop) is built again for up to `portWait`.
public func withRunningApplication<App: ApplicationProtocol, Result: Sendable>(
    portWait: Duration = .seconds(30),
    _ makeApplication: (@escaping @Sendable (Int) async -> Void) throws -> App,
    _ body: (Int) async throws -> Result
) async throws -> Result {
    let deadline = ContinuousClock.now + portWait
    while true {
        do {
            return try await runOnce(makeApplication, body)
        } catch let error as TestServerError where error.isAddressInUse && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}

/// Runs `router` on a free loopback port around `body`, which receives the port.
public func withRunningRouter<Context: RequestContext, Result: Sendable>(
    _ router: Router<Context>, _ body: (Int) async throws -> Result
) async throws -> Result where Context.Source == ApplicationRequestContextSource {
    try await withRunningApplication(
        { onRunning in
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) })
        }, body)
}

private func runOnce<App: ApplicationProtocol, Result: Sendable>(
    _ makeApplication: (@escaping @Sendable (Int) async -> Void) throws -> App,
    _ body: (Int) async throws -> Result
) async throws -> Result {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = try makeApplication { port in continuation.yield(port) }
    var configuration = ServiceGroupConfiguration(services: [.init(service: app)], logger: Logger(label: "test-server"))
    // A connection that never closes must not hold a test until its time limit: after this
    // the server is cancelled. (No cancellation limit: ServiceGroup ends the process on it.)
    configuration.maximumGracefulShutdownDuration = .seconds(15)
    let group = ServiceGroup(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask {
            // Ends the wait for a port below if the server stops without ever listening.
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            // Reports why it stopped, "address already in use" say, instead of waiting forever.
            do {
                try await tasks.waitForAll()
            } catch {
                throw TestServerError.didNotStart(error)
            }
            throw TestServerError.didNotStart(nil)
        }
        do {
            let result = try await body(port)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return result
        } catch {
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            throw error
        }
    }
}

public enum TestServerError: Error, CustomStringConvertible {
    /// The server stopped before it listened, with the error it stopped on.
    case didNotStart((any Error)?)

    /// Whether it could not start because its port was still taken.
    public var isAddressInUse: Bool {
        guard case .didNotStart(let error?) = self, let io = error as? IOError else { return false }
        return io.errnoCode == EADDRINUSE
    }

    public var description: String {
        switch self {
        case .didNotStart(let error?): "The test server did not start: \(error)"
        case .didNotStart(nil): "The test server did not start."
        }
    }
}
