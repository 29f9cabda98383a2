import ArgumentParser
import Foundation
import ModerationStore

/// `console audit summary`: decisions of a range by staff member, action and outcome, and
/// the time from submission to decision per queue, as CSV. Only what decided an item counts,
/// as on the printed summary: not notes, take-overs, or decisions that were not applied.
struct AuditSummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary", abstract: "Summarise the decisions of a range as CSV (the audit page prints the same as HTML).")

    @OptionGroup var database: AuditDatabaseOptions
    @OptionGroup var range: AuditRangeOptions

    func run() async throws {
        let filter = try range.filter()
        let summary = try await database.withStore { store in await AuditSummary(try store.decisionRecords(filter).filter(\.decided)) }
        ConsoleOutput.write(summary.csv())
    }
}
