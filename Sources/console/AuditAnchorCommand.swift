import ArgumentParser
import Foundation
import ModerationStore

/// `console audit anchor`: the head of a verified chain, as one line to keep elsewhere.
struct AuditAnchorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "anchor",
        abstract: "Print the newest audit entry's id, hash and time, to keep somewhere the database's users cannot write.",
        discussion: """
            The chain is verified first (with --audit-key when it is keyed); nothing is printed when it is broken. Later, \
            `console audit verify --anchor "<the line>"` checks that this entry is still there with this hash: a log rewritten \
            from that entry or before it cannot pass, and with a keyed chain nobody without the key can rebuild it.
            """)

    @OptionGroup var database: AuditDatabaseOptions

    func run() async throws {
        try await database.withStore { store in try await Self.anchor(store) }
    }

    private static func anchor(_ store: ModerationStore) async throws {
        // The head first: the chain verified next includes it, whatever a running console appends meanwhile.
        guard let head = try await store.auditEntries(limit: 1).first else { throw CommandFailure("The audit log is empty: there is nothing to anchor.") }
        if case .broken(let id, let reason) = try await store.verifyAuditChain() {
            throw CommandFailure("The audit chain is broken at entry \(id): \(reason). Not anchoring it.")
        }
        ConsoleOutput.write(AuditAnchor(head: head).line + "\n")
    }
}
