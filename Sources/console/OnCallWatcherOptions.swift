import ArgumentParser
import ConsoleServer
import Foundation

/// The queue watcher's options, shared by `console serve` and `console demo`.
struct OnCallWatcherOptions: ParsableArguments {
    @Flag(name: .long, help: "Run no queue watcher: no queue.overdue alerts. (env: CONSOLE_WATCH=0)")
    var noWatch = false

    @Option(name: .long, help: "Seconds between the queue watcher's looks at the queues. (env: CONSOLE_WATCH_INTERVAL, default: 30)")
    var watchInterval: Double?

    @Option(
        name: .long,
        help:
            "Share of the backend's reads per endpoint and window the watcher may spend when the mirror cannot answer, 0 to 1. (env: CONSOLE_WATCH_READ_SHARE, default: 0.2)"
    )
    var watchReadShare: Double?

    @Option(name: .long, help: "Minutes after which an overdue queue's alert is sent again while it lasts. (env: CONSOLE_ALERT_REPEAT_MINUTES, default: 60)")
    var alertRepeatMinutes: Double?

    @Option(
        name: .long,
        help: "Minutes an alert may go unacknowledged before it escalates to the next person in the rotation. (env: CONSOLE_ALERT_ACK_MINUTES, default: 30)")
    var alertAckMinutes: Double?

    /// The watcher's configuration, `nil` when turned off; `backendWindow`/`backendLimit` are the demo sandbox's own.
    func configuration(backendWindow: Int = 300, backendLimit: Int = 60) throws -> OnCallWatcherConfiguration? {
        if noWatch || EnvironmentOption.string(nil, "CONSOLE_WATCH", default: "1") == "0" { return nil }
        let defaults = OnCallWatcherConfiguration()
        let share = try number(watchReadShare, "--watch-read-share", "CONSOLE_WATCH_READ_SHARE", defaults.readShare)
        guard (0...1).contains(share) else { throw ValidationError("--watch-read-share (CONSOLE_WATCH_READ_SHARE) must be between 0 and 1, got \(share).") }
        return OnCallWatcherConfiguration(
            interval: try positive(watchInterval, "--watch-interval", "CONSOLE_WATCH_INTERVAL", defaults.interval),
            readShare: share,
            repeatInterval: 60 * (try positive(alertRepeatMinutes, "--alert-repeat-minutes", "CONSOLE_ALERT_REPEAT_MINUTES", defaults.repeatInterval / 60)),
            ackTimeout: 60 * (try positive(alertAckMinutes, "--alert-ack-minutes", "CONSOLE_ALERT_ACK_MINUTES", defaults.ackTimeout / 60)),
            windowSeconds: backendWindow, backendLimit: backendLimit)
    }

    private func number(_ flag: Double?, _ option: String, _ variable: String, _ fallback: Double) throws -> Double {
        if let flag { return flag }
        guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return fallback }
        guard let parsed = Double(text), parsed.isFinite else { throw ValidationError("\(variable) must be a number, got '\(text)'.") }
        return parsed
    }

    private func positive(_ flag: Double?, _ option: String, _ variable: String, _ fallback: Double) throws -> Double {
        let value = try number(flag, option, variable, fallback)
        guard value > 0, value.isFinite else { throw ValidationError("\(option) (\(variable)) must be above 0, got \(value).") }
        return value
    }
}
