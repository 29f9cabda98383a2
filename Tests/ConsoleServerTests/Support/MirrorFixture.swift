import Foundation
import Hummingbird
import HummingbirdTesting
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// A sandbox with chosen limits behind a counting `FaultingProxy`, and consoles with the
/// mirror sync on that can be started and stopped on one database (for restarts).
enum MirrorFixture {
    /// Runs a sandbox (its database in `directory`) and a proxy in front of it; `outage`
    /// makes the proxy answer 503 without forwarding while it is on; otherwise `faults` decides.
    static func withBackend<Result: Sendable>(
        rateLimits: RateLimitPolicy?, directory: TemporaryDirectory, outage: OutageSwitch = OutageSwitch(),
        faults: @escaping FaultingProxy.Plan = { _, _, _ in .pass }, beforeForwarding: FaultingProxy.BeforeForwarding? = nil,
        _ body: @Sendable (SandboxFixture, FaultingProxy, URL) async throws -> Result
    ) async throws -> Result {
        try await SandboxFixture.run(rateLimits: rateLimits, databasePath: directory.path("sandbox.sqlite")) { sandbox in
            try await FaultingProxy.run(
                to: "http://127.0.0.1:\(sandbox.port)",
                plan: { method, path, call in
                    outage.isOn ? .answerWithoutForwarding(.serviceUnavailable) : faults(method, path, call)
                }, beforeForwarding: beforeForwarding
            ) { proxy, origin in
                guard let url = URL(string: origin + "/api/v1/") else { throw URLError(.badURL) }
                return try await body(sandbox, proxy, url)
            }
        }
    }

    /// Runs the console with `mirror` against `backendURL`, its database in `directory`.
    static func withConsole<Result: Sendable>(
        backendURL: URL, directory: TemporaryDirectory, mirror: MirrorConfiguration,
        _ body: @Sendable (Browser) async throws -> Result
    ) async throws -> Result {
        var settings = ConsoleFixture.configuration(backendURL: backendURL, directory: directory)
        settings.mirror = mirror
        let app = try await buildConsoleApplication(configuration: settings, logger: ConsoleFixture.quietLogger)
        return try await app.test(.live) { client in try await body(Browser(client: client)) }
    }

    /// A mirror policy for a sandbox window of `window` seconds and `reads` reads, with the given rhythm.
    static func mirror(
        window: Int, reads: Int, firstPageInterval: TimeInterval = 1, pendingItemInterval: TimeInterval = 2, pageSize: Int = 50,
        tickInterval: TimeInterval = 0.1, passInterval: TimeInterval = 1
    ) -> MirrorConfiguration {
        MirrorConfiguration(
            policy: .init(
                windowSeconds: window, backendLimit: reads, firstPageInterval: firstPageInterval, pendingItemInterval: pendingItemInterval),
            tickInterval: tickInterval, pageSize: pageSize, passInterval: passInterval)
    }

    /// Waits until `condition` holds, checking every 100 ms; fails the test after `timeout`.
    /// 90 s by default: with the whole suite running on two cores, a first pass of the seed has
    /// taken over 30 s. A goal (the 30-s freshness) passes its own timeout.
    static func eventually(
        _ what: String, timeout: Duration = .seconds(90), sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("not within \(timeout): \(what)", sourceLocation: sourceLocation)
    }
}

/// Turns a simulated backend outage on and off from a test while the proxy runs.
final class OutageSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var on = false

    var isOn: Bool {
        get { lock.withLock { on } }
        set { lock.withLock { on = newValue } }
    }
}

/// The backend scope a call to the sandbox counts against (backend-api.md), `nil` for sign-in and others.
enum BackendScope {
    static func of(_ call: FaultingProxy.ForwardedCall) -> MirrorScope? {
        guard call.method == .get else { return nil }
        let path = call.path.replacingOccurrences(of: "/api/v1/", with: "")
        switch path {
        case "libraries/moderation", "libraries/moderation/pending": return .libraryList
        case "libraries/moderation/summary": return .summary
        case "libraries/moderation/reports": return .reportList
        case "libraries/moderation/photos": return .photoList
        case "statistics/": return .statistics
        default: return path.hasPrefix("libraries/moderation/") ? .libraryDetail : nil
        }
    }
}
