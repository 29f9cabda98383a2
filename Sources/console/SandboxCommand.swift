import ArgumentParser
import Hummingbird
import Sandbox
import ServiceLifecycle

/// The sandbox's options, shared by `console sandbox` and `console demo`.
struct SandboxOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "The sandbox's SQLite file; seeded on first start. (env: SANDBOX_DATABASE, default: data/sandbox.sqlite, or data/demo/sandbox.sqlite for demo)")
    var sandboxDatabase: String?

    @Option(name: .long, help: "Secret that signs the sandbox's tokens. (env: SANDBOX_TOKEN_SECRET)")
    var tokenSecret: String?

    @Option(name: .long, help: "Access token lifetime in seconds. (env: SANDBOX_ACCESS_TOKEN_LIFETIME, default: 300)")
    var accessTokenLifetime: Int?

    @Option(name: .long, help: "Refresh token lifetime in seconds. (env: SANDBOX_REFRESH_TOKEN_LIFETIME, default: 86400)")
    var refreshTokenLifetime: Int?

    @Option(name: .long, help: "Rate-limit window in seconds. (env: SANDBOX_RATE_WINDOW, default: 300)")
    var rateWindow: Int?

    @Option(name: .long, help: "Reads per window, per client and endpoint. (env: SANDBOX_READ_LIMIT, default: 60)")
    var readLimit: Int?

    @Option(name: .long, help: "Writes per window, per client and endpoint. (env: SANDBOX_WRITE_LIMIT, default: 10)")
    var writeLimit: Int?

    @Option(name: .long, help: "Sign-ins per window, per client. (env: SANDBOX_LOGIN_LIMIT, default: 10)")
    var loginLimit: Int?

    @Option(name: .long, help: "Token refreshes per window, per client. (env: SANDBOX_REFRESH_LIMIT, default: 15)")
    var refreshLimit: Int?

    @Flag(name: .long, help: "Turn rate limiting off. (env: SANDBOX_NO_RATE_LIMITS=1)")
    var noRateLimits = false

    @Option(name: .long, help: "Seed number for the generated data. (env: SANDBOX_SEED, default: 42)")
    var seed: Int?

    @Option(
        name: .long,
        help: "Libraries to seed a new sandbox database with, 25 to 50000; reports and photos in proportion. (env: SANDBOX_LIBRARIES, default: 500)")
    var libraries: Int?

    @Option(
        name: .long,
        help:
            "Append one JSON line per API request answered (time, window, client, method, path, scope, kind, status) to this file. (env: SANDBOX_REQUEST_LOG, default: none)"
    )
    var requestLog: String?

    @Option(
        name: .long,
        help:
            "Staff accounts soak01, soak02, … (password staff-demo-password) to seed a new sandbox database with besides staff, maria and jonas, 0 to 99; an existing database keeps its accounts. (env: SANDBOX_EXTRA_STAFF, default: 0)"
    )
    var extraStaff: Int?

    @Option(
        name: .long,
        help:
            "Pending community photos, and open reports for each reason, to add to a new sandbox database after the usual data (all newer than it, so the oldest waiting items lie deep in their lists), 0 to 5000; the usual data and its ids stay the same. (env: SANDBOX_CROWDED_QUEUES, default: 0)"
    )
    var crowdedQueues: Int?

    func configuration(defaultDatabase: String) throws -> SandboxConfiguration {
        let libraryCount = try EnvironmentOption.integer(libraries, "SANDBOX_LIBRARIES", default: 500)
        guard SandboxConfiguration.libraryCountRange.contains(libraryCount) else {
            throw ValidationError("--libraries (SANDBOX_LIBRARIES) must be between 25 and 50000, got \(libraryCount).")
        }
        let extraStaffCount = try EnvironmentOption.integer(extraStaff, "SANDBOX_EXTRA_STAFF", default: 0)
        guard SandboxConfiguration.extraStaffRange.contains(extraStaffCount) else {
            throw ValidationError("--extra-staff (SANDBOX_EXTRA_STAFF) must be between 0 and 99, got \(extraStaffCount).")
        }
        let crowded = try EnvironmentOption.integer(crowdedQueues, "SANDBOX_CROWDED_QUEUES", default: 0)
        guard SandboxConfiguration.crowdedQueuesRange.contains(crowded) else {
            throw ValidationError("--crowded-queues (SANDBOX_CROWDED_QUEUES) must be between 0 and 5000, got \(crowded).")
        }
        let limitsOff = noRateLimits || EnvironmentOption.string(nil, "SANDBOX_NO_RATE_LIMITS", default: "0") == "1"
        let policy = RateLimitPolicy(
            windowSeconds: try positive(rateWindow, "SANDBOX_RATE_WINDOW", 300),
            reads: try positive(readLimit, "SANDBOX_READ_LIMIT", 60),
            writes: try positive(writeLimit, "SANDBOX_WRITE_LIMIT", 10),
            logins: try positive(loginLimit, "SANDBOX_LOGIN_LIMIT", 10),
            refreshes: try positive(refreshLimit, "SANDBOX_REFRESH_LIMIT", 15))
        return SandboxConfiguration(
            databasePath: EnvironmentOption.string(sandboxDatabase, "SANDBOX_DATABASE", default: defaultDatabase),
            tokenSecret: EnvironmentOption.string(tokenSecret, "SANDBOX_TOKEN_SECRET", default: "sandbox-secret-change-me"),
            accessTokenLifetime: Double(try positive(accessTokenLifetime, "SANDBOX_ACCESS_TOKEN_LIFETIME", 300)),
            refreshTokenLifetime: Double(try positive(refreshTokenLifetime, "SANDBOX_REFRESH_TOKEN_LIFETIME", 86_400)),
            rateLimits: limitsOff ? nil : policy,
            seed: UInt64(try positive(seed, "SANDBOX_SEED", 42)),
            libraryCount: libraryCount,
            requestLogPath: EnvironmentOption.optionalString(requestLog, "SANDBOX_REQUEST_LOG"),
            extraStaff: extraStaffCount, crowdedQueues: crowded)
    }

    private func positive(_ flag: Int?, _ variable: String, _ fallback: Int) throws -> Int {
        let value = try EnvironmentOption.integer(flag, variable, default: fallback)
        guard value > 0 else { throw ValidationError("\(variable) must be greater than zero.") }
        return value
    }
}

/// `console sandbox`: the stand-in Book Corners backend on its own.
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Run a stand-in Book Corners backend with seeded data, for demos, development and tests.",
        discussion:
            "It answers every call of the Book Corners staff API the console uses, with the real backend's rate limits, error bodies and path rules, on its own SQLite file."
    )

    @Option(name: .long, help: "Address to listen on. (env: SANDBOX_BIND, default: 127.0.0.1)")
    var bind: String?

    @Option(name: .long, help: "Port to listen on. (env: SANDBOX_PORT, default: 8081)")
    var port: Int?

    @OptionGroup var sandbox: SandboxOptions

    @OptionGroup var apns: APNsStandInOptions

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical. (env: SANDBOX_LOG_LEVEL, default: info)")
    var logLevel: String?

    func run() async throws {
        let host = EnvironmentOption.string(bind, "SANDBOX_BIND", default: "127.0.0.1")
        let port = try EnvironmentOption.integer(port, "SANDBOX_PORT", default: 8081)
        let logger = EnvironmentOption.logger(label: "sandbox", level: try EnvironmentOption.logLevel(logLevel, "SANDBOX_LOG_LEVEL"))
        let configuration = try sandbox.configuration(defaultDatabase: "data/sandbox.sqlite")
        let standIn = try apns.standIn(
            sandboxDatabase: configuration.databasePath, host: host, topic: EnvironmentOption.string(nil, "CONSOLE_APNS_TOPIC", default: "org.bookcorners.app"),
            logger: logger)
        let app = try buildSandboxApplication(
            configuration: configuration, apnsStandIn: standIn?.standIn, host: host, port: port, logger: logger,
            onServerRunning: { port in
                ConsoleOutput.write("Sandbox backend: http://\(host):\(port)/api/v1/\n")
                if let standIn { ConsoleOutput.write(Self.standInHelp(standIn.files, host: host, port: standIn.port, sandboxPort: port)) }
            })
        // Written once the sandbox is seeded: one token per seeded user.
        try standIn?.files.writeDeviceTokens(sandboxDatabase: configuration.databasePath)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: app)] + (standIn.map { [.init(service: $0.standIn)] } ?? []),
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// How to point a console started apart at the stand-in.
    static func standInHelp(_ files: APNsStandInFiles, host: String, port: Int, sandboxPort: Int) -> String {
        """
        APNs stand-in: https://\(host):\(port)/ (HTTP/2 over TLS); pushes it received: http://\(host):\(sandboxPort)/apns/pushes
          Seeded users' device tokens, once the console has made its database: console devices import \(files.deviceTokensPath)
          Deliver to it: console serve --outbox-transport apns --apns-key-file \(files.key.keyPath) --apns-key-id \(files.key.keyID) \\
            --apns-team-id \(files.key.teamID) --apns-sandbox-url https://\(host):\(port) --apns-production-url https://\(host):\(port) \\
            --apns-ca-file \(files.certificatePath)

        """
    }
}
