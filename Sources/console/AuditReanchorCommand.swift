import ArgumentParser
import Foundation
import ModerationStore

/// `console audit reanchor`: acknowledges an entry damaged in storage, so the chain verifies
/// past it again, with an audited entry instead of a rewrite.
struct AuditReanchorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reanchor",
        abstract: "Acknowledge an audit entry whose stored contents no longer match its hash.",
        discussion: """
            Consoles before 2026-11-26 stored a text holding a NUL byte (a sign-in typed with one) cut at the NUL, \
            while its hash covered the whole text: `console audit verify` then reports that entry BROKEN for good, and \
            backups, anchors and prunes refuse to run. This appends an `audit.reanchor` entry naming the damaged entry \
            and the hash it carries; verify then goes on past it. Nothing is rewritten or removed. Only the entry the \
            chain first breaks at can be acknowledged, and only when its neighbours still link to its stored hash \
            (its contents alone differ): a removed, moved or added entry is never acknowledged.
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "The id of the entry `console audit verify` reports BROKEN.")
    var entry: Int64

    @Option(name: .long, help: "Why: recorded in the re-anchor entry, e.g. \"sign-in typed with a NUL, stored cut (issue 29)\".")
    var reason: String

    func run() async throws {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw ValidationError("--reason must say why the entry is acknowledged.") }
        var acknowledgement = CommandLineActor.entry(action: AuditEntry.reanchorAction, targetName: "", outcome: .succeeded)
        acknowledgement.reason = reason
        let entry = self.entry
        let id = try await database.withStore { store in try await Self.reanchor(store, entry: entry, acknowledgement: acknowledgement) }
        ConsoleOutput.write("Entry \(entry) acknowledged as damaged by re-anchor entry \(id); run `console audit verify` to check the rest of the chain.\n")
    }

    /// Appends the re-anchor, or says in words why it may not be.
    private static func reanchor(_ store: ModerationStore, entry: Int64, acknowledgement: AuditEntry) async throws -> Int64 {
        do {
            return try await store.reanchorAudit(at: entry, acknowledgement: acknowledgement)
        } catch {
            switch error {
            case .chainIntact:
                throw CommandFailure("The audit chain verifies: there is nothing to re-anchor.")
            case .notFirstBreak(let first):
                throw CommandFailure("The chain first breaks at entry \(first), not \(entry): acknowledge breaks in order, starting with \(first).")
            case .notContentDamage:
                throw CommandFailure(
                    "Entry \(entry) is not an entry whose contents alone changed (an entry was removed, moved or added, or the audit key differs): a re-anchor would hide that. Restore the last good backup instead."
                )
            case .database(let detail):
                throw CommandFailure("The re-anchor could not be written: \(detail)")
            }
        }
    }
}
