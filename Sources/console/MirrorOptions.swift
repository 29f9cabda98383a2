import ArgumentParser
import ConsoleServer
import Foundation

/// The mirror sync's options, shared by `console serve` and `console demo`.
struct MirrorOptions: ParsableArguments {
    @Flag(name: .long, help: "Run no mirror sync. (env: CONSOLE_MIRROR=0)")
    var noMirror = false

    @Option(
        name: .long,
        help: "Share of the backend's reads per scope and window the mirror may spend, above 0 and at most 1. (env: CONSOLE_MIRROR_READ_SHARE, default: 0.5)")
    var mirrorReadShare: Double?

    @Option(name: .long, help: "Share of the mirror's budget kept for checks before decisions, 0 to 1. (env: CONSOLE_MIRROR_DECISION_SHARE, default: 0.2)")
    var mirrorDecisionShare: Double?

    @Option(
        name: .long, help: "Reads the backend allows per scope and window. (env: CONSOLE_MIRROR_BACKEND_LIMIT, default: 60; demo: the sandbox's --read-limit)")
    var mirrorBackendLimit: Int?

    @Option(
        name: .long, help: "The backend's rate-limit window in seconds. (env: CONSOLE_MIRROR_BACKEND_WINDOW, default: 300; demo: the sandbox's --rate-window)")
    var mirrorBackendWindow: Int?

    @Option(name: .long, help: "Seconds between reads of each queue's first page. (env: CONSOLE_MIRROR_FIRST_PAGE_INTERVAL, default: 25)")
    var mirrorFirstPageInterval: Double?

    @Option(
        name: .long,
        help: "Seconds within which every waiting item is read again, while the budget allows. (env: CONSOLE_MIRROR_PENDING_INTERVAL, default: 120)")
    var mirrorPendingInterval: Double?

    // The sync's own rhythm, hidden: only a time-scaled benchmark (scripts/benchmark-mirror-scale.sh)
    // shortens it, together with the backend window, so a 50 000-library pass runs in minutes.
    @Option(name: .long, help: .hidden)
    var mirrorTickInterval: Double?

    @Option(name: .long, help: .hidden)
    var mirrorPassInterval: Double?

    @Option(name: .long, help: .hidden)
    var mirrorStatisticsInterval: Double?

    /// The mirror's configuration, `nil` when turned off; `backendWindow`/`backendLimit` are the demo sandbox's own.
    func configuration(backendWindow: Int = 300, backendLimit: Int = 60) throws -> MirrorConfiguration? {
        if noMirror || EnvironmentOption.string(nil, "CONSOLE_MIRROR", default: "1") == "0" { return nil }
        let share = try fraction(mirrorReadShare, "--mirror-read-share", "CONSOLE_MIRROR_READ_SHARE", default: 0.5)
        guard share > 0 else { throw ValidationError("--mirror-read-share (CONSOLE_MIRROR_READ_SHARE) must be above 0.") }
        let policy = ReadPlanner.Policy(
            windowSeconds: try positive(mirrorBackendWindow, "--mirror-backend-window", "CONSOLE_MIRROR_BACKEND_WINDOW", backendWindow),
            backendLimit: try positive(mirrorBackendLimit, "--mirror-backend-limit", "CONSOLE_MIRROR_BACKEND_LIMIT", backendLimit),
            readShare: share,
            decisionShare: try fraction(mirrorDecisionShare, "--mirror-decision-share", "CONSOLE_MIRROR_DECISION_SHARE", default: 0.2),
            firstPageInterval: try seconds(mirrorFirstPageInterval, "--mirror-first-page-interval", "CONSOLE_MIRROR_FIRST_PAGE_INTERVAL", 25),
            pendingItemInterval: try seconds(mirrorPendingInterval, "--mirror-pending-interval", "CONSOLE_MIRROR_PENDING_INTERVAL", 120))
        let defaults = MirrorConfiguration()
        return MirrorConfiguration(
            policy: policy,
            tickInterval: try seconds(mirrorTickInterval, "--mirror-tick-interval", "CONSOLE_MIRROR_TICK_INTERVAL", defaults.tickInterval),
            statisticsInterval: try seconds(
                mirrorStatisticsInterval, "--mirror-statistics-interval", "CONSOLE_MIRROR_STATISTICS_INTERVAL", defaults.statisticsInterval),
            passInterval: try seconds(mirrorPassInterval, "--mirror-pass-interval", "CONSOLE_MIRROR_PASS_INTERVAL", defaults.passInterval))
    }

    /// The backend's window and reads per scope, which every budget follows, mirror or not.
    func backendWindowAndReads(defaultWindow: Int, defaultReads: Int) throws -> (window: Int, reads: Int) {
        (
            try positive(mirrorBackendWindow, "--mirror-backend-window", "CONSOLE_MIRROR_BACKEND_WINDOW", defaultWindow),
            try positive(mirrorBackendLimit, "--mirror-backend-limit", "CONSOLE_MIRROR_BACKEND_LIMIT", defaultReads)
        )
    }

    /// The share of the backend's reads the console spends per scope and window.
    func readShare() throws -> Double {
        let share = try fraction(mirrorReadShare, "--mirror-read-share", "CONSOLE_MIRROR_READ_SHARE", default: 0.5)
        guard share > 0 else { throw ValidationError("--mirror-read-share (CONSOLE_MIRROR_READ_SHARE) must be above 0.") }
        return share
    }

    /// A positive number of seconds, fractions allowed (a time-scaled run needs e.g. 4.8 s).
    private func seconds(_ flag: Double?, _ option: String, _ variable: String, _ fallback: TimeInterval) throws -> TimeInterval {
        var value = fallback
        if let flag {
            value = flag
        } else if let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty {
            guard let parsed = Double(text) else { throw ValidationError("\(variable) must be a number of seconds, got '\(text)'.") }
            value = parsed
        }
        guard value > 0, value.isFinite else { throw ValidationError("\(option) (\(variable)) must be above 0, got \(value).") }
        return value
    }

    private func fraction(_ flag: Double?, _ option: String, _ variable: String, default fallback: Double) throws -> Double {
        var value = fallback
        if let flag {
            value = flag
        } else if let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty {
            guard let parsed = Double(text) else { throw ValidationError("\(variable) must be a number, got '\(text)'.") }
            value = parsed
        }
        guard (0...1).contains(value) else { throw ValidationError("\(option) (\(variable)) must be between 0 and 1, got \(value).") }
        return value
    }

    private func positive(_ flag: Int?, _ option: String, _ variable: String, _ fallback: Int) throws -> Int {
        let value = try EnvironmentOption.integer(flag, variable, default: fallback)
        guard value > 0 else { throw ValidationError("\(option) (\(variable)) must be at least 1, got \(value).") }
        return value
    }
}
