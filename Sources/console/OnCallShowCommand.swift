import ArgumentParser
import ConsoleServer
import Foundation
import ModerationStore

/// `console oncall show`: who is on call now and next, and the turns of the next two weeks.
struct OnCallShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print who is on call now and next, and the coming shifts.",
        discussion: "Times are on the rotation's clock (its time zone), as the On call page shows them.")

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "Days of coming shifts to list (1 to 90, default: 14).")
    var days: Int = 14

    func run() async throws {
        guard (1...90).contains(days) else { throw ValidationError("--days must be 1 to 90, got \(days).") }
        let now = Date()
        guard let schedule = try await database.withStore({ store in try await store.onCallSchedule(since: now) }) else {
            ConsoleOutput.write("No on-call rotation yet: set one up on the console's On call page.\n")
            return
        }
        ConsoleOutput.write(Self.text(schedule, now: now, days: days))
    }

    /// The printout: the rotation, now and next, then one line per turn.
    static func text(_ schedule: OnCallSchedule, now: Date, days: Int) -> String {
        let rotation = schedule.rotation
        let clock = OnCallTimeText(zone: rotation.timeZone)
        let (current, next) = schedule.nowAndNext(at: now)
        var lines = [
            "Rotation: \(rotation.members.map(\.username).joined(separator: " → ")); \(rotation.shiftDays)-day shifts handing off at "
                + "\(rotation.handoff) \(rotation.timeZone.identifier), from \(rotation.startDate).",
            "Times are \(clock.clockName).",
            "",
            "Now:  " + (current.map { "\($0.member.username) until \(clock.dayAndTime($0.endsAt))" } ?? "nobody (the rotation has not started)"),
            "Next: " + (next.map { "\($0.member.username) from \(clock.dayAndTime($0.startsAt))" } ?? "nobody else"),
            "",
            "Coming shifts:",
        ]
        // Up to the end of the shift under way at the horizon, so the last line is a whole shift.
        let horizon = now.addingTimeInterval(Double(days) * 86_400)
        let end = rotation.shiftIndex(at: horizon).map { rotation.start(ofShift: $0 + 1) } ?? horizon
        let turns = schedule.turns(from: now, to: end)
        for turn in turns {
            let cover = schedule.override(at: turn.startsAt) != nil ? "  (override)" : ""
            let start = turn.startsAt <= now ? "now" : clock.dayAndTime(turn.startsAt)
            lines.append("  \(start) – \(clock.dayAndTime(turn.endsAt))  \(turn.member.username)\(cover)")
        }
        if turns.isEmpty { lines.append("  none") }
        return lines.joined(separator: "\n") + "\n"
    }
}
