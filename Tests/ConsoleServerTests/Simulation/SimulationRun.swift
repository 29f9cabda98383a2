import Foundation
import Synchronization

@testable import ConsoleServer

/// Runs many schedules of the decision simulation, a few at once (each has its own world and
/// database, so running them side by side changes none of them), from consecutive seeds.
///
/// Set from the environment by `scripts/simulate.sh`: `SIM_SEED` (the first seed; default: the
/// clock, so each run searches new schedules), `SIM_SCHEDULES` (exactly this many; default: as
/// many as fit in the time), `SIM_TRACE=1` (print every schedule's trace).
struct SimulationRun: Sendable {
    let firstSeed: UInt64
    /// Exactly this many schedules; nil: as many as fit in `seconds`, and at least `minimum`.
    let schedules: Int?
    let seconds: Double
    let minimum: Int
    let printsTraces: Bool
    let width: Int

    struct Result: Sendable {
        let firstSeed: UInt64
        let schedules: Int
        let seconds: Double
        let broken: [ScheduleReport]
        let outsideAssumption: Int
        /// For each kind of violation, the first schedule (counted from 1) that showed it.
        let firstFound: [SimulationViolation.Kind: Int]

        var perSecond: Double { Double(schedules) / max(seconds, 0.001) }

        /// The closing line scripts/simulate.sh and the test print.
        var summary: String {
            "\(schedules) schedules, \(broken.count) broken (\(outsideAssumption) outside the protocol's assumption, not counted); seeds \(firstSeed)…\(firstSeed + UInt64(max(schedules, 1)) - 1); \(String(format: "%.1f", perSecond)) schedules per second"
        }
    }

    static func fromEnvironment(seconds: Double = 60, minimum: Int = 2_000) -> SimulationRun {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["SIM_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
        return SimulationRun(
            firstSeed: seed, schedules: environment["SIM_SCHEDULES"].flatMap(Int.init), seconds: seconds, minimum: minimum,
            printsTraces: environment["SIM_TRACE"] == "1", width: environment["SIM_WIDTH"].flatMap(Int.init) ?? 4)
    }

    /// Runs schedules under `rules`; `stopWhen` ends the run early once what was found suffices.
    func run(rules: DecisionProtocol, stopWhen: @escaping @Sendable ([SimulationViolation.Kind: Int]) -> Bool = { _ in false }) async throws -> Result {
        let setup = try await SimulationSetup.shared()
        let started = ContinuousClock.now
        let deadline = started + .milliseconds(Int64(seconds * 1000))
        var broken: [ScheduleReport] = []
        var outside = 0
        var done = 0
        var firstFound: [SimulationViolation.Kind: Int] = [:]
        var next = 0
        func more() -> Bool {
            if let schedules { return next < schedules }
            return ContinuousClock.now < deadline || next < minimum
        }
        try await withThrowingTaskGroup(of: (Int, ScheduleReport).self) { group in
            func add() {
                let index = next
                next += 1
                let seed = firstSeed &+ UInt64(index)
                group.addTask {
                    let schedule = try DecisionSchedule(seed: seed, rules: rules, setup: setup)
                    return (index, try await schedule.run())
                }
            }
            for _ in 0..<width where more() { add() }
            while let (index, report) = try await group.next() {
                done += 1
                if printsTraces {
                    print(
                        "— schedule, seed \(report.seed) —\n" + report.trace.joined(separator: "\n") + "\n"
                            + report.violations.map { "  ✗ \($0)" }.joined(separator: "\n"))
                }
                if report.assumptionViolated { outside += 1 }
                if report.broken {
                    broken.append(report)
                    for violation in report.violations where firstFound[violation.kind].map({ $0 > index + 1 }) ?? true {
                        firstFound[violation.kind] = index + 1
                    }
                }
                if stopWhen(firstFound) { break }
                if more() { add() }
            }
            group.cancelAll()
        }
        return Result(
            firstSeed: firstSeed, schedules: done, seconds: (ContinuousClock.now - started).timeInterval, broken: broken.sorted { $0.seed < $1.seed },
            outsideAssumption: outside, firstFound: firstFound)
    }

    /// A broken schedule as a person reads it: what broke, the trace, and the command that replays it.
    static func explain(_ report: ScheduleReport) -> String {
        """
        Seed \(report.seed) broke the protocol:
        \(report.violations.map { "  ✗ \($0)" }.joined(separator: "\n"))
        Trace:
        \(report.trace.map { "  \($0)" }.joined(separator: "\n"))
        Replay: scripts/simulate.sh --seed \(report.seed) --schedules 1 --trace
        """
    }
}
