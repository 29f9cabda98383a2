import ArgumentParser
import ConsoleServer
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `console serve`: the web console against a configured backend.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the web console against a Book Corners backend.")

    @Option(name: .long, help: "Address to listen on. (env: CONSOLE_BIND, default: 127.0.0.1)")
    var bind: String?

    @Option(name: .long, help: "Port to listen on. (env: CONSOLE_PORT, default: 8080)")
    var port: Int?

    @Option(name: .long, help: "The console's SQLite file. (env: CONSOLE_DATABASE, default: data/console.sqlite)")
    var database: String?

    @Option(name: .long, help: "Book Corners API base URL. (env: CONSOLE_BACKEND_URL, default: http://127.0.0.1:8081/api/v1/)")
    var backendURL: String?

    @Option(
        name: .long,
        help:
            "Base64 of a 32-byte key that encrypts backend tokens at rest. (env: CONSOLE_TOKEN_KEY, default: a key file console.key created next to the database, mode 0600)"
    )
    var tokenKey: String?

    @Option(
        name: .long,
        help:
            "A file of 32+ random bytes (mode 0600), kept apart from the database, that keys the audit chain: new entries are HMAC-SHA256 under it, after an audit.keyed entry. Once keyed, the console needs it to start. (env: CONSOLE_AUDIT_KEY, default: unkeyed)"
    )
    var auditKey: String?

    @Flag(name: .long, help: "The console is served over TLS by a proxy: mark cookies Secure. (env: CONSOLE_BEHIND_TLS_PROXY=1)")
    var behindTLSProxy = false

    @OptionGroup var resources: ResourceOptions

    @OptionGroup var mirror: MirrorOptions

    @OptionGroup var backendLimits: BackendLimitOptions

    @OptionGroup var outbox: OutboxOptions

    @OptionGroup var watcher: OnCallWatcherOptions

    @OptionGroup var media: MediaOptions

    @Option(
        name: .long,
        help:
            "A proxy (address or CIDR range, IPv4 or IPv6) whose X-Forwarded-For / Forwarded headers name the client; repeat or comma-separate. Without it those headers are ignored. (env: CONSOLE_TRUSTED_PROXY, comma-separated)"
    )
    var trustedProxy: [String] = []

    @Option(
        name: .long,
        help:
            "The header the trusted proxy writes the client into: x-forwarded-for or forwarded; the other is ignored, since a proxy passes it through as the client sent it. (env: CONSOLE_FORWARDING_HEADER, default: x-forwarded-for)"
    )
    var forwardingHeader: String?

    @Flag(
        name: .long,
        help:
            "Send each staff member's address to Book Corners as X-Forwarded-For, so the backend counts their calls against their own address. (env: CONSOLE_FORWARD_STAFF_ADDRESS=1, default: off: the console is one client)"
    )
    var forwardStaffAddress = false

    @Option(
        name: .long,
        help:
            "The console's URL as browsers see it (e.g. https://console.example.org), when a proxy rewrites Host; POSTs from any other origin are refused. (env: CONSOLE_PUBLIC_URL, default: the request's own scheme and Host)"
    )
    var publicURL: String?

    @Option(name: .long, help: "Seconds between re-checks that a signed-in person is still staff. (env: CONSOLE_STAFF_RECHECK, default: 300)")
    var staffRecheck: Int?

    @Option(
        name: .long,
        help:
            "Minutes past the last confirmation that someone is staff during which pages go on while Book Corners cannot be asked; after that a page says why, the session kept. (env: CONSOLE_STAFF_GRACE_MINUTES, default: 15)"
    )
    var staffGraceMinutes: Int?

    @Option(
        name: .long,
        help:
            "Days without a sign-in (and no session) after which a staff member's calendar feed stops; the on-call page says so. (env: CONSOLE_CALENDAR_FEED_IDLE_DAYS, default: 14)"
    )
    var calendarFeedIdleDays: Int?

    @OptionGroup var claims: ClaimOptions

    @Option(
        name: .long,
        help: "Open pages that may follow changes live, per session. (env: CONSOLE_LIVE_STREAMS_PER_SESSION, default: 4)")
    var liveStreamsPerSession: Int?

    @Option(
        name: .long,
        help:
            "Open pages that may follow changes live, per person, across every console process on the database. (env: CONSOLE_LIVE_STREAMS_PER_PERSON, default: 8)"
    )
    var liveStreamsPerPerson: Int?

    @Option(name: .long, help: "Open pages that may follow changes live, in all. (env: CONSOLE_LIVE_STREAMS, default: 200)")
    var liveStreams: Int?

    @Option(name: .long, help: "Seconds between deletions of expired sessions and old sign-in attempts. (env: CONSOLE_PRUNE_INTERVAL, default: 3600)")
    var pruneInterval: Int?

    @Option(
        name: .long,
        help:
            "Seconds a connection may stay open with nothing arriving or being answered; also the most time a request's headers may take. (env: CONSOLE_IDLE_TIMEOUT, default: 60)"
    )
    var idleTimeout: Int?

    @Option(
        name: .long,
        help: "Seconds reading one request may take once its headers arrived, however steadily its body trickles. (env: CONSOLE_REQUEST_TIMEOUT, default: 30)")
    var requestTimeout: Int?

    @Option(
        name: .long,
        help:
            "Seconds a rendered page answers the same person's same request again while nothing in the database changed; 0 renders every request. (env: CONSOLE_RECENT_PAGE_LIFETIME, default: 1)"
    )
    var recentPageLifetime: Int?

    @Option(
        name: .long,
        help:
            "Queue rows whose HTML is kept and written again while the row is unchanged, per generation (two are kept); 0 writes every row of every view. (env: CONSOLE_KEPT_ROWS, default: 512)"
    )
    var keptRows: Int?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical. (env: CONSOLE_LOG_LEVEL, default: info)")
    var logLevel: String?

    @OptionGroup var operations: OperationsOptions

    func run() async throws {
        try operations.bootstrapLogging()
        let configuration = try consoleConfiguration()
        let logger = EnvironmentOption.logger(label: "console", level: try EnvironmentOption.logLevel(logLevel, "CONSOLE_LOG_LEVEL"))
        let app = try await buildConsoleApplication(
            configuration: configuration, logger: logger,
            onServerRunning: { port in
                logger.info(
                    "console listening",
                    metadata: [
                        "address": "http://\(configuration.host):\(port)/",
                        "metrics": "\(configuration.metrics.map { "http://\($0.host):\($0.port)/metrics" } ?? "off")",
                    ])
            })
        // A SIGTERM stops new connections and lets requests in flight and the decision being sent
        // finish; whatever is still running when the grace runs out is cancelled.
        var group = ServiceGroupConfiguration(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = try operations.shutdownGraceDuration()
        group.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: group).run()
    }

    func consoleConfiguration() throws -> ConsoleConfiguration {
        let urlText = EnvironmentOption.string(backendURL, "CONSOLE_BACKEND_URL", default: "http://127.0.0.1:8081/api/v1/")
        guard let url = URL(string: urlText.hasSuffix("/") ? urlText : urlText + "/"), let scheme = url.scheme,
            ["http", "https"].contains(scheme), url.host != nil
        else { throw ValidationError("The backend URL must be an http(s) URL such as https://bookcorners.org/api/v1/, got '\(urlText)'.") }
        let key = tokenKey ?? ProcessInfo.processInfo.environment["CONSOLE_TOKEN_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let proxies: TrustedProxies
        do {
            proxies = try TrustedProxies(parsing: trustedProxy.isEmpty ? [EnvironmentOption.string(nil, "CONSOLE_TRUSTED_PROXY", default: "")] : trustedProxy)
        } catch {
            throw ValidationError("--trusted-proxy: \(error)")
        }
        let headerText = EnvironmentOption.string(forwardingHeader, "CONSOLE_FORWARDING_HEADER", default: "x-forwarded-for")
        guard let header = ForwardingHeader(rawValue: headerText.lowercased()) else {
            throw ValidationError("--forwarding-header must be x-forwarded-for or forwarded, got '\(headerText)'.")
        }
        var publicOrigin: URL?
        if let text = publicURL ?? ProcessInfo.processInfo.environment["CONSOLE_PUBLIC_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw ValidationError("The public URL must be an http(s) URL such as https://console.example.org, got '\(text)'.")
            }
            publicOrigin = url
        }
        let recheck = try positive(staffRecheck, "--staff-recheck", "CONSOLE_STAFF_RECHECK", default: 300)
        let prune = try positive(pruneInterval, "--prune-interval", "CONSOLE_PRUNE_INTERVAL", default: 3_600)
        let databasePath = EnvironmentOption.string(database, "CONSOLE_DATABASE", default: "data/console.sqlite")
        let pageLifetime = try EnvironmentOption.integer(recentPageLifetime, "CONSOLE_RECENT_PAGE_LIFETIME", default: 1)
        guard (0...60).contains(pageLifetime) else {
            throw ValidationError("--recent-page-lifetime (CONSOLE_RECENT_PAGE_LIFETIME) must be 0 to 60 seconds, got \(pageLifetime).")
        }
        let keptRowCount = try EnvironmentOption.integer(keptRows, "CONSOLE_KEPT_ROWS", default: ConsoleConfiguration.standardKeptRows)
        guard (0...10_000).contains(keptRowCount) else {
            throw ValidationError("--kept-rows (CONSOLE_KEPT_ROWS) must be 0 to 10000, got \(keptRowCount).")
        }
        let limits = try backendLimits.limits(mirror: mirror)
        var configuration = ConsoleConfiguration(
            host: EnvironmentOption.string(bind, "CONSOLE_BIND", default: "127.0.0.1"),
            port: try EnvironmentOption.integer(port, "CONSOLE_PORT", default: 8080),
            databasePath: databasePath,
            backendURL: url,
            templatesDirectory: try resources.templatesDirectory(),
            publicDirectory: try resources.publicFilesDirectory(),
            tokenKey: key,
            behindTLSProxy: behindTLSProxy || EnvironmentOption.string(nil, "CONSOLE_BEHIND_TLS_PROXY", default: "0") == "1",
            forwardClientAddress: forwardStaffAddress || EnvironmentOption.string(nil, "CONSOLE_FORWARD_STAFF_ADDRESS", default: "0") == "1",
            apnsTopic: outbox.topic,
            connectionIdleTimeout: TimeInterval(try positive(idleTimeout, "--idle-timeout", "CONSOLE_IDLE_TIMEOUT", default: 60)),
            requestReadTimeout: TimeInterval(try positive(requestTimeout, "--request-timeout", "CONSOLE_REQUEST_TIMEOUT", default: 30)),
            trustedProxies: proxies, forwardingHeader: header, staffRecheckInterval: TimeInterval(recheck), publicURL: publicOrigin,
            pruneInterval: TimeInterval(prune), mirror: try mirror.configuration(),
            outbox: try outbox.configuration(databasePath: databasePath), claimDuration: try claims.duration(),
            onCallWatcher: try watcher.configuration(backendWindow: limits.windowSeconds, backendLimit: limits.reads),
            recentPageLifetime: TimeInterval(pageLifetime))
        configuration.backendLimits = limits
        configuration.keptRows = keptRowCount
        configuration.decisionInFlightLimit = try backendLimits.inFlightLimit()
        configuration.backendCountSpan = try backendLimits.countSpan()
        configuration.staffUnconfirmedGrace = TimeInterval(
            60 * (try positive(staffGraceMinutes, "--staff-grace-minutes", "CONSOLE_STAFF_GRACE_MINUTES", default: 15)))
        configuration.calendarFeedIdleDays = try positive(
            calendarFeedIdleDays, "--calendar-feed-idle-days", "CONSOLE_CALENDAR_FEED_IDLE_DAYS", default: IdleCalendarFeeds.defaultIdleDays)
        configuration.auditKeyPath = EnvironmentOption.optionalString(auditKey, "CONSOLE_AUDIT_KEY")
        configuration.extraMediaOrigins = try media.origins()
        configuration.metrics = try operations.metrics()
        configuration.readinessBackendSilence = try operations.readinessSilence()
        configuration.readinessIntegrityInterval = try operations.readinessIntegrityCheckInterval()
        configuration.liveStreamsPerSession = try count(liveStreamsPerSession, "--live-streams-per-session", "CONSOLE_LIVE_STREAMS_PER_SESSION", default: 4)
        configuration.liveStreamsPerPerson = try count(liveStreamsPerPerson, "--live-streams-per-person", "CONSOLE_LIVE_STREAMS_PER_PERSON", default: 8)
        configuration.liveStreams = try count(liveStreams, "--live-streams", "CONSOLE_LIVE_STREAMS", default: 200)
        return configuration
    }

    private func count(_ flag: Int?, _ option: String, _ variable: String, default fallback: Int) throws -> Int {
        let value = try EnvironmentOption.integer(flag, variable, default: fallback)
        guard value >= 0 else { throw ValidationError("\(option) (\(variable)) must not be negative, got \(value).") }
        return value
    }

    private func positive(_ flag: Int?, _ option: String, _ variable: String, default fallback: Int) throws -> Int {
        let value = try EnvironmentOption.integer(flag, variable, default: fallback)
        guard value > 0 else { throw ValidationError("\(option) (\(variable)) must be at least 1 second, got \(value).") }
        return value
    }
}
