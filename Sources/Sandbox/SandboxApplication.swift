import Foundation
import Hummingbird
import Logging

/// Builds the sandbox backend: a stand-in for the Book Corners API on its own SQLite file.
/// With `apnsStandIn`, it also shows that stand-in's pushes and faults under `/apns/`.
public func buildSandboxApplication(
    configuration: SandboxConfiguration,
    apnsStandIn: APNsStandIn? = nil,
    host: String = "127.0.0.1",
    port: Int = 8081,
    logger: Logger = Logger(label: "sandbox"),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let directory = URL(fileURLWithPath: configuration.databasePath).deletingLastPathComponent()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // Opened before anything else, so an unwritable path stops start-up with its name.
    // Without limits the windows are still counted in the real backend's 300 s.
    let requestLog = try configuration.requestLogPath.map {
        try RequestLog(path: $0, windowSeconds: configuration.rateLimits?.windowSeconds ?? RateLimitPolicy().windowSeconds)
    }
    let store = try SandboxStore(
        path: configuration.databasePath, seed: configuration.seed, libraryCount: configuration.libraryCount,
        extraStaff: configuration.extraStaff, crowdedQueues: configuration.crowdedQueues)
    let api = SandboxAPI(
        store: store,
        signer: TokenSigner(
            secret: configuration.tokenSecret, accessLifetime: configuration.accessTokenLifetime,
            refreshLifetime: configuration.refreshTokenLifetime),
        limiter: configuration.rateLimits.map(RateLimiter.init(policy:)),
        maxBodyBytes: configuration.maxBodyBytes)
    return Application(
        responder: SandboxResponder(api: api, requestLog: requestLog, apnsRoutes: apnsStandIn.map(APNsStandInRoutes.init(standIn:))),
        configuration: .init(address: .hostname(host, port: port), serverName: "BookCornersSandbox"),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
        logger: logger)
}
