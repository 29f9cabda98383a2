import ArgumentParser
import ConsoleServer
import Foundation
import Logging

/// What whoever runs the console watches it with, shared by `console serve` and `console demo`:
/// the metrics listener, the log format, readiness and the shutdown's bound.
struct OperationsOptions: ParsableArguments {
    @Option(
        name: .long, help: "Address of the metrics listener (/metrics, Prometheus' format); keep it private. (env: CONSOLE_METRICS_BIND, default: 127.0.0.1)")
    var metricsBind: String?

    @Option(name: .long, help: "Port of the metrics listener. (env: CONSOLE_METRICS_PORT, default: 9464)")
    var metricsPort: Int?

    @Flag(name: .long, help: "Serve no /metrics. (env: CONSOLE_METRICS=0)")
    var noMetrics = false

    @Option(name: .long, help: "text (for people) or json (one object per line, for log collectors). (env: CONSOLE_LOG_FORMAT, default: text)")
    var logFormat: String?

    @Option(
        name: .long, help: "Seconds without an answer from Book Corners after which /readyz answers 503. (env: CONSOLE_READINESS_BACKEND_SILENCE, default: 120)"
    )
    var readinessBackendSilence: Int?

    @Option(
        name: .long,
        help:
            "Seconds /readyz keeps its verdict on the database file's integrity (SQLite's quick_check) before checking again. (env: CONSOLE_READINESS_INTEGRITY_INTERVAL, default: 60)"
    )
    var readinessIntegrityInterval: Int?

    @Option(
        name: .long,
        help: "Seconds a SIGTERM waits for requests in flight and the decision being sent before stopping them. (env: CONSOLE_SHUTDOWN_GRACE, default: 20)")
    var shutdownGrace: Int?

    /// The metrics listener's address, `nil` when turned off.
    func metrics() throws -> MetricsListenerConfiguration? {
        guard !noMetrics, EnvironmentOption.string(nil, "CONSOLE_METRICS", default: "1") != "0" else { return nil }
        let port = try EnvironmentOption.integer(metricsPort, "CONSOLE_METRICS_PORT", default: 9464)
        guard (0...65_535).contains(port) else { throw ValidationError("--metrics-port (CONSOLE_METRICS_PORT) must be 0 to 65535, got \(port).") }
        return MetricsListenerConfiguration(host: EnvironmentOption.string(metricsBind, "CONSOLE_METRICS_BIND", default: "127.0.0.1"), port: port)
    }

    func readinessSilence() throws -> TimeInterval {
        let seconds = try EnvironmentOption.integer(readinessBackendSilence, "CONSOLE_READINESS_BACKEND_SILENCE", default: 120)
        guard seconds >= 4 else {
            throw ValidationError("--readiness-backend-silence (CONSOLE_READINESS_BACKEND_SILENCE) must be at least 4 seconds, got \(seconds).")
        }
        return TimeInterval(seconds)
    }

    func readinessIntegrityCheckInterval() throws -> TimeInterval {
        let seconds = try EnvironmentOption.integer(readinessIntegrityInterval, "CONSOLE_READINESS_INTEGRITY_INTERVAL", default: 60)
        guard (1...86_400).contains(seconds) else {
            throw ValidationError("--readiness-integrity-interval (CONSOLE_READINESS_INTEGRITY_INTERVAL) must be 1 to 86400 seconds, got \(seconds).")
        }
        return TimeInterval(seconds)
    }

    func shutdownGraceDuration() throws -> Duration {
        let seconds = try EnvironmentOption.integer(shutdownGrace, "CONSOLE_SHUTDOWN_GRACE", default: 20)
        guard (1...600).contains(seconds) else {
            throw ValidationError("--shutdown-grace (CONSOLE_SHUTDOWN_GRACE) must be 1 to 600 seconds, got \(seconds).")
        }
        return .seconds(seconds)
    }

    /// Sends every logger of the process to the chosen format; call once, before any logger is made.
    func bootstrapLogging() throws {
        let format = EnvironmentOption.string(logFormat, "CONSOLE_LOG_FORMAT", default: "text").lowercased()
        switch format {
        case "text": LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        case "json": LoggingSystem.bootstrap { label in JSONLogHandler(label: label) }
        default: throw ValidationError("--log-format (CONSOLE_LOG_FORMAT) must be text or json, got '\(format)'.")
        }
    }
}
