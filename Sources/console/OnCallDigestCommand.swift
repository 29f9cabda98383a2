import ArgumentParser
import Foundation
import ModerationStore

/// `console oncall digest --shift N`: a stored hand-off digest as Markdown.
struct OnCallDigestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digest",
        abstract: "Print the digest of a hand-off as Markdown.",
        discussion: """
            The digest of rotation shift N is built at its hand-off (the end of the shift): decisions by kind and person, \
            what still waited, alerts, changes made outside the console, the note and any follow-ups. The On call page's \
            Hand-offs list names the shifts.
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "The rotation shift whose hand-off to print.")
    var shift: Int

    func run() async throws {
        try await database.withStore { store in try await printDigest(from: store) }
    }

    private func printDigest(from store: ModerationStore) async throws {
        guard let handoff = try await store.shiftHandoff(shift) else {
            let newest = try await store.shiftHandoffs(limit: 1).first.map { " The newest is shift \($0.shiftIndex)." } ?? " None is stored yet."
            throw CommandFailure("No hand-off digest for shift \(shift).\(newest)")
        }
        await ConsoleOutput.write(HandoffMarkdown(handoff: handoff, followUps: try store.handoffFollowUps(shiftIndex: shift)).text())
    }
}
