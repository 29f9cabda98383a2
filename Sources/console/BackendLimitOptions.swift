import ArgumentParser
import ConsoleServer
import Foundation

/// The backend's limits besides reads (whose window and number `MirrorOptions` holds), shared by
/// `console serve` and `console demo`: every call is budgeted within them, in the database,
/// across every console process on it.
struct BackendLimitOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "Writes (decisions) the backend allows per scope and window. (env: CONSOLE_BACKEND_WRITE_LIMIT, default: 10; demo: the sandbox's --write-limit)")
    var backendWriteLimit: Int?

    @Option(name: .long, help: "Sign-ins the backend allows per window. (env: CONSOLE_BACKEND_SIGN_IN_LIMIT, default: 10; demo: the sandbox's --login-limit)")
    var backendSignInLimit: Int?

    @Option(
        name: .long,
        help:
            "Of the sign-ins per window, how many are kept for browsers that signed in here before (or were given a sign-in link): strangers' failed guesses cannot spend them. (env: CONSOLE_SIGN_IN_REMEMBERED_SHARE, default: 6 of 10)"
    )
    var signInRememberedShare: Int?

    @Option(
        name: .long,
        help:
            "Sign-ins each address (an IPv6 /64) may spend per window of those not kept for remembered browsers. (env: CONSOLE_SIGN_IN_PER_ADDRESS, default: 2)"
    )
    var signInPerAddress: Int?

    @Option(
        name: .long,
        help: "Token refreshes the backend allows per window. (env: CONSOLE_BACKEND_REFRESH_LIMIT, default: 15; demo: the sandbox's --refresh-limit)")
    var backendRefreshLimit: Int?

    @Option(
        name: .long,
        help:
            "Seconds Book Corners may take to act on a request after the console sent it, queueing in front of it included: a decision whose answer was lost is checked again only after this, so that it is never sent twice. The deployment must guarantee it (a proxy queue timeout). (env: CONSOLE_BACKEND_IN_FLIGHT_LIMIT, default: 90)"
    )
    var backendInFlightLimit: Int?

    @Option(
        name: .long,
        help:
            "Seconds after its grant that the backend may still count a call: the console charges it to every rate-limit window that span touches. 0 only for a backend that counts a request as it arrives, such as the sandbox. (env: CONSOLE_BACKEND_COUNT_SPAN, default: the in-flight limit + the 10-s request timeout; demo: 0)"
    )
    var backendCountSpan: Int?

    /// The span a call is charged over (I5); nil: derived from the in-flight limit. `fallback` is
    /// the default where one is known (the demo's sandbox counts at once).
    func countSpan(fallback: TimeInterval? = nil) throws -> TimeInterval? {
        guard let seconds = try EnvironmentOption.optionalInteger(backendCountSpan, "CONSOLE_BACKEND_COUNT_SPAN") else { return fallback }
        guard (0...400).contains(seconds) else {
            throw ValidationError("--backend-count-span (CONSOLE_BACKEND_COUNT_SPAN) must be 0 to 400 seconds, got \(seconds).")
        }
        return TimeInterval(seconds)
    }

    /// The decision protocol's bound on a request in flight (I2), in seconds.
    /// At most 300 s: every call is charged to each budget window its span touches, so a longer
    /// bound would charge every call twice or more and cut every limit by as much.
    func inFlightLimit() throws -> TimeInterval {
        let seconds = try positive(backendInFlightLimit, "--backend-in-flight-limit", "CONSOLE_BACKEND_IN_FLIGHT_LIMIT", 90)
        guard seconds <= 300 else {
            throw ValidationError(
                "--backend-in-flight-limit (CONSOLE_BACKEND_IN_FLIGHT_LIMIT) must be at most 300 seconds, got \(seconds): every backend call is charged to each 5-minute window that span touches, so a longer one would cut every limit by half or more. Make Book Corners' queue drop requests sooner instead."
            )
        }
        return TimeInterval(seconds)
    }

    /// The limits, the window and reads from the mirror's options; `defaults` are the demo sandbox's own.
    func limits(mirror: MirrorOptions, defaults: BackendLimits = BackendLimits()) throws -> BackendLimits {
        let (window, reads) = try mirror.backendWindowAndReads(defaultWindow: defaults.windowSeconds, defaultReads: defaults.reads)
        let signIns = try positive(backendSignInLimit, "--backend-sign-in-limit", "CONSOLE_BACKEND_SIGN_IN_LIMIT", defaults.signIns)
        let remembered = try EnvironmentOption.optionalInteger(signInRememberedShare, "CONSOLE_SIGN_IN_REMEMBERED_SHARE")
        if let remembered, !(0..<signIns).contains(remembered) {
            throw ValidationError(
                "--sign-in-remembered-share (CONSOLE_SIGN_IN_REMEMBERED_SHARE) must be 0 to \(signIns - 1), fewer than the \(signIns) sign-ins per window, got \(remembered): a first sign-in needs at least one."
            )
        }
        return BackendLimits(
            windowSeconds: window, reads: reads,
            writes: try positive(backendWriteLimit, "--backend-write-limit", "CONSOLE_BACKEND_WRITE_LIMIT", defaults.writes),
            signIns: signIns, rememberedSignIns: remembered,
            signInsPerAddress: try positive(signInPerAddress, "--sign-in-per-address", "CONSOLE_SIGN_IN_PER_ADDRESS", defaults.signInsPerAddress),
            refreshes: try positive(backendRefreshLimit, "--backend-refresh-limit", "CONSOLE_BACKEND_REFRESH_LIMIT", defaults.refreshes),
            readShare: try mirror.readShare())
    }

    private func positive(_ flag: Int?, _ option: String, _ variable: String, _ fallback: Int) throws -> Int {
        let value = try EnvironmentOption.integer(flag, variable, default: fallback)
        guard value > 0 else { throw ValidationError("\(option) (\(variable)) must be at least 1, got \(value).") }
        return value
    }
}
