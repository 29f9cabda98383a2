import Foundation
import ModerationStore
import TestSupport
import Testing

/// The real `console oncall digest` command, run as a person would run it.
@Suite("console oncall digest", .timeLimit(.minutes(3)))
struct OnCallDigestCommandTests {
    private static var binary: String { RepositoryPaths.root.appendingPathComponent(".build/debug/console").path }

    @Test("prints a stored hand-off as Markdown with its follow-ups; an unknown hand-off is an error naming the newest")
    func printsDigest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: a hand-off with a note and a follow-up
        let path = directory.path("console.sqlite")
        let store = try ModerationStore(path: path)
        let alice = StaffMember(id: 1, username: "alice"), bob = StaffMember(id: 2, username: "bob")
        let endsAt = Date(timeIntervalSince1970: 1_794_211_200)
        func audit(_ action: String) -> AuditEntry { HandoffFixture.entry(action, by: alice, at: endsAt) }
        try await store.savePendingHandoffNote(author: alice, text: "Call the owner of *Corner Books*.", audit: audit("handoff.note"), now: endsAt)
        let digest = HandoffDigest(
            asOf: endsAt, timeZone: "America/New_York", decisionsByKind: [.init(key: "photo.reject", count: 2)],
            decisionsByPerson: [.init(key: "alice", count: 2)], queues: nil, alerts: [], outsideChanges: [], outsideChangeCount: 0, note: nil)
        let planned = ShiftHandoff.Planned(
            startsAt: endsAt.addingTimeInterval(-86_400), endsAt: endsAt, outgoing: alice, incoming: bob, digest: digest, builtAt: endsAt)
        let handoff = try #require(
            try await store.recordHandoff(planned) { _ in
                OutboxMessage(
                    id: "m", actionId: nil, recipientUserId: 2, eventType: .shiftHandoff, payload: "{}", headers: "{}", createdAt: endsAt,
                    dedupeKey: "handoff-1")
            })
        try await store.addHandoffFollowUp(
            handoffID: handoff.id, author: alice, text: "Done.", audit: audit("handoff.followUp"), now: endsAt.addingTimeInterval(60))
        let stored = try await #require(try store.shiftHandoff(id: handoff.id))
        // act
        let run = try ChildProcess.run(Self.binary, ["oncall", "digest", "--handoff", String(handoff.id), "--database", path])
        let unknown = try ChildProcess.run(Self.binary, ["oncall", "digest", "--handoff", "9", "--database", path])
        // check
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output == HandoffMarkdown(handoff: stored, followUps: try await store.handoffFollowUps(handoffID: handoff.id)).text())
        #expect(run.output.hasPrefix("# Hand-off 1: alice to bob, 2026-11-09 03:00\n\nalice → bob, 2026-11-08 03:00 – 2026-11-09 03:00 (America/New_York)\n"))
        #expect(run.output.contains("> Call the owner of \\*Corner Books\\*.\n"))
        #expect(run.output.contains("## Follow-ups\n\n> Done.\n"))
        #expect(unknown.status == 1)
        #expect(unknown.errorOutput.contains("No hand-off 9. The newest is hand-off 1."))
    }
}
