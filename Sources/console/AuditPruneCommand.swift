import ArgumentParser
import Foundation
import ModerationStore

/// `console audit prune`: removes old entries behind a checkpoint, so the rest still verifies.
struct AuditPruneCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune",
        abstract: "Remove audit entries recorded before a day, keeping the chain verifiable.",
        discussion: """
            The log is kept forever unless you run this. Before anything is removed, a checkpoint entry is \
            appended that carries the id and hash of the last removed entry; `console audit verify` chains the \
            first remaining entry to it. Export the range first if you must keep it.
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "Remove entries recorded before this day (yyyy-MM-dd, UTC) or instant (ISO 8601).")
    var before: String

    func run() async throws {
        guard let date = ISOTime.parseDay(before) ?? ISOTime.parse(before) else {
            throw ValidationError("--before must be a day like 2025-01-01 or an instant like 2025-01-01T00:00:00Z, got '\(before)'.")
        }
        guard date <= Date() else { throw ValidationError("--before must not be in the future.") }
        try await database.withStore { store in try await Self.prune(store, before: date) }
    }

    private static func prune(_ store: ModerationStore, before date: Date) async throws {
        guard case .intact = try await store.verifyAuditChain() else {
            throw ValidationError("The audit chain does not verify; run `console audit verify` and investigate before pruning.")
        }
        let result = try await store.pruneAudit(
            before: date, checkpoint: CommandLineActor.entry(action: AuditEntry.pruneCheckpointAction, targetName: "", outcome: .succeeded))
        if let checkpoint = result.checkpointID {
            ConsoleOutput.write(
                "Removed \(result.removed) entries recorded before \(ISOTime.string(date)); checkpoint entry \(checkpoint) keeps the last removed hash.\n")
        } else {
            ConsoleOutput.write("Nothing recorded before \(ISOTime.string(date)); nothing removed.\n")
        }
    }
}
