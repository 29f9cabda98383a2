import ArgumentParser
import ConsoleServer
import Foundation
import Hummingbird
import Logging
import ModerationStore
import Sandbox
import ServiceLifecycle

/// `console demo`: the sandbox and the console together on loopback.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the sandbox backend and the console together on loopback, with seeded data.",
        discussion: "Prints both addresses and a staff account to sign in with. Data lives in data/demo/ and survives restarts.")

    @Option(name: .long, help: "Console port. (env: CONSOLE_PORT, default: 8080)")
    var port: Int?

    @Option(name: .long, help: "Sandbox port. (env: SANDBOX_PORT, default: 8081)")
    var sandboxPort: Int?

    @Option(name: .long, help: "The console's SQLite file. (env: CONSOLE_DATABASE, default: data/demo/console.sqlite)")
    var database: String?

    @Option(name: .long, help: "Seconds between re-checks that a signed-in person is still staff. (env: CONSOLE_STAFF_RECHECK, default: 300)")
    var staffRecheck: Int?

    @Option(name: .long, help: "A file of 32+ random bytes (mode 0600) that keys the audit chain. (env: CONSOLE_AUDIT_KEY, default: unkeyed)")
    var auditKey: String?

    @OptionGroup var sandbox: SandboxOptions

    @OptionGroup var claims: ClaimOptions

    @OptionGroup var resources: ResourceOptions

    @OptionGroup var mirror: MirrorOptions

    @OptionGroup var backendLimits: BackendLimitOptions

    @OptionGroup var apns: APNsStandInOptions

    @OptionGroup var outbox: OutboxOptions

    @OptionGroup var watcher: OnCallWatcherOptions

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical. (env: CONSOLE_LOG_LEVEL, default: info)")
    var logLevel: String?

    @OptionGroup var operations: OperationsOptions

    func run() async throws {
        try operations.bootstrapLogging()
        let host = "127.0.0.1"
        let consolePort = try EnvironmentOption.integer(port, "CONSOLE_PORT", default: 8080)
        let backendPort = try EnvironmentOption.integer(sandboxPort, "SANDBOX_PORT", default: 8081)
        let level = try EnvironmentOption.logLevel(logLevel, "CONSOLE_LOG_LEVEL")
        let recheck = try EnvironmentOption.integer(staffRecheck, "CONSOLE_STAFF_RECHECK", default: 300)
        guard recheck > 0 else { throw ValidationError("--staff-recheck (CONSOLE_STAFF_RECHECK) must be at least 1 second, got \(recheck).") }
        let claimDuration = try claims.duration()
        let logger = EnvironmentOption.logger(label: "demo", level: level)
        // Found before anything starts, so a missing directory stops the demo at once.
        let templates = try resources.templatesDirectory()
        let publicFiles = try resources.publicFilesDirectory()
        guard let backendURL = URL(string: "http://\(host):\(backendPort)/api/v1/") else {
            throw ValidationError("Invalid sandbox port \(backendPort).")
        }
        let sandboxConfiguration = try sandbox.configuration(defaultDatabase: "data/demo/sandbox.sqlite")
        // The mirror plans against the sandbox's own limits (without limits, the real backend's).
        let limits = sandboxConfiguration.rateLimits ?? RateLimitPolicy()
        let mirrorConfiguration = try mirror.configuration(backendWindow: limits.windowSeconds, backendLimit: limits.reads)
        let standIn = try apns.standIn(
            sandboxDatabase: sandboxConfiguration.databasePath, host: host, topic: outbox.topic,
            logger: EnvironmentOption.logger(label: "apns-stand-in", level: level))
        let sandboxApp = try buildSandboxApplication(
            configuration: sandboxConfiguration, apnsStandIn: standIn?.standIn, host: host, port: backendPort,
            logger: EnvironmentOption.logger(label: "sandbox", level: level))
        let databasePath = EnvironmentOption.string(database, "CONSOLE_DATABASE", default: "data/demo/console.sqlite")
        let auditKeyPath = EnvironmentOption.optionalString(auditKey, "CONSOLE_AUDIT_KEY")
        let key = try auditKeyPath.map { path throws(AuditKeyError) in try AuditKey.load(path: path) }
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: databasePath).deletingLastPathComponent(), withIntermediateDirectories: true)
        // Taken before the demo's own writes (its rotation, its devices), held until it stops.
        let databaseLock = try DatabaseLock.shared(databasePath: databasePath)
        try await DemoOnCall.prepare(
            store: ModerationStore(path: databasePath, auditKey: key), staff: SeedAccounts.staffAccounts(databasePath: sandboxConfiguration.databasePath),
            onCallFirst: SeedAccounts.demoStaffUsername, now: Date())
        var outboxConfiguration: OutboxDeliveryConfiguration
        if let standIn {
            // The seeded users' phones, so decisions become pushes the stand-in's page shows.
            try standIn.files.writeDeviceTokens(sandboxDatabase: sandboxConfiguration.databasePath)
            let export = try Data(contentsOf: URL(fileURLWithPath: standIn.files.deviceTokensPath))
            try await ModerationStore(path: databasePath, auditKey: key).importDevices(try DeviceTokenExport.parse(export), now: Date())
            guard let standInURL = URL(string: "https://\(host):\(standIn.port)") else { throw ValidationError("Invalid --apns-port.") }
            outboxConfiguration = try outbox.configuration(
                databasePath: databasePath, defaultTransport: "apns",
                demoAPNs: APNsConfiguration(
                    keyPath: standIn.files.key.keyPath, keyID: standIn.files.key.keyID, teamID: standIn.files.key.teamID, topic: outbox.topic,
                    productionURL: standInURL, sandboxURL: standInURL, caFilePath: standIn.files.certificatePath))
            outboxConfiguration.watchURL = "http://\(host):\(backendPort)/apns/pushes"
        } else {
            outboxConfiguration = try outbox.configuration(databasePath: databasePath)
        }
        let otherStaff = try SeedAccounts.staffAccounts(databasePath: sandboxConfiguration.databasePath)
            .map(\.username).filter { $0 != SeedAccounts.demoStaffUsername }.joined(separator: ", ")
        let watchURL = outboxConfiguration.watchURL ?? "no APNs stand-in (--no-apns-stand-in)"
        var consoleConfiguration = ConsoleConfiguration(
            host: host, port: consolePort, databasePath: databasePath, backendURL: backendURL, templatesDirectory: templates,
            publicDirectory: publicFiles, apnsTopic: outbox.topic, staffRecheckInterval: TimeInterval(recheck), mirror: mirrorConfiguration,
            outbox: outboxConfiguration, claimDuration: claimDuration,
            onCallWatcher: try watcher.configuration(backendWindow: limits.windowSeconds, backendLimit: limits.reads))
        consoleConfiguration.auditKeyPath = auditKeyPath
        consoleConfiguration.decisionInFlightLimit = try backendLimits.inFlightLimit()
        // The sandbox counts a call as it arrives: one window per call.
        consoleConfiguration.backendCountSpan = try backendLimits.countSpan(fallback: 0)
        consoleConfiguration.backendLimits = try backendLimits.limits(
            mirror: mirror,
            defaults: BackendLimits(
                windowSeconds: limits.windowSeconds, reads: limits.reads, writes: limits.writes, signIns: limits.logins, refreshes: limits.refreshes))
        consoleConfiguration.metrics = try operations.metrics()
        consoleConfiguration.readinessBackendSilence = try operations.readinessSilence()
        consoleConfiguration.readinessIntegrityInterval = try operations.readinessIntegrityCheckInterval()
        let metricsLine = consoleConfiguration.metrics.map { "http://\($0.host):\($0.port)/metrics" } ?? "off (--no-metrics)"
        let consoleApp = try await buildConsoleApplication(
            configuration: consoleConfiguration,
            logger: EnvironmentOption.logger(label: "console", level: level),
            onServerRunning: { port in
                ConsoleOutput.write(
                    """

                    Book Corners moderation console demo
                      Console:  http://\(host):\(port)/
                      Sandbox:  \(backendURL.absoluteString)
                      Pushes:   \(watchURL)
                      Metrics:  \(metricsLine)   (readiness: http://\(host):\(port)/readyz)
                      Sign in as staff:      \(SeedAccounts.demoStaffUsername) / \(SeedAccounts.demoStaffPassword)  (on call in the demo rotation)
                      More staff:            \(otherStaff) (same password)
                      A non-staff account:   \(SeedAccounts.demoUserUsername) / \(SeedAccounts.userPassword)
                    Press Ctrl-C to stop.

                    """)
            })
        var group = ServiceGroupConfiguration(
            services: [.init(service: sandboxApp)] + (standIn.map { [.init(service: $0.standIn)] } ?? []) + [.init(service: consoleApp)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        group.maximumGracefulShutdownDuration = try operations.shutdownGraceDuration()
        group.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: group).run()
        withExtendedLifetime(databaseLock) {}
    }
}
