import ArgumentParser
import Foundation

/// How long claims last, shared by `console serve` and `console demo`.
struct ClaimOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "Minutes an \"I'm reviewing this\" claim lasts unless its holder decides or releases it first. (env: CONSOLE_CLAIM_MINUTES, default: 15)")
    var claimMinutes: Int?

    /// The claim duration in seconds; refuses anything under a minute or over a day.
    func duration() throws -> TimeInterval {
        let minutes = try EnvironmentOption.integer(claimMinutes, "CONSOLE_CLAIM_MINUTES", default: 15)
        guard (1...1_440).contains(minutes) else {
            throw ValidationError("--claim-minutes (CONSOLE_CLAIM_MINUTES) must be 1 to 1440 minutes, got \(minutes).")
        }
        return TimeInterval(minutes * 60)
    }
}
