import ArgumentParser
import Foundation
import ModerationStore

/// `console oncall digest --handoff N`: a stored hand-off digest as Markdown.
struct OnCallDigestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digest",
        abstract: "Print the digest of a hand-off as Markdown.",
        discussion: """
            A digest is built at each hand-off (whenever the person on call changes): decisions by kind and person, \
            what still waited, alerts, changes made outside the console, the note and any follow-ups. N is the number \
            in the hand-off's address on the Hand-offs page (/on-call/handoffs/N).
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "The hand-off to print: the number in its address on the Hand-offs page.")
    var handoff: Int64

    func run() async throws {
        try await database.withStore { store in try await printDigest(from: store) }
    }

    private func printDigest(from store: ModerationStore) async throws {
        guard let stored = try await store.shiftHandoff(id: handoff) else {
            let newest = try await store.shiftHandoffs(limit: 1).first.map { " The newest is hand-off \($0.id)." } ?? " None is stored yet."
            throw CommandFailure("No hand-off \(handoff).\(newest)")
        }
        await ConsoleOutput.write(HandoffMarkdown(handoff: stored, followUps: try store.handoffFollowUps(handoffID: handoff)).text())
    }
}
