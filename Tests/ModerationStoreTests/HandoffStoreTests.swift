import Foundation
import GRDB
import ModerationStore
import Testing

/// Hand-offs in the store: one row and one message per hand-off whoever stores it, the note
/// frozen into the digest at the hand-off, follow-ups only from the person who handed over,
/// dismissal only by the person who took over, once.
@Suite("ModerationStore: hand-offs, notes and dismissal")
struct HandoffStoreTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handoffs-\(UUID().uuidString)")
    private var path: String { directory.appendingPathComponent("console.sqlite").path }
    private let start = Date(timeIntervalSince1970: 1_794_211_200)  // 2026-11-09 08:00 UTC
    private let alice = StaffMember(id: 101, username: "alice")
    private let bob = StaffMember(id: 102, username: "bob")

    private func withStore(_ body: (ModerationStore) async throws -> Void) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try ModerationStore(path: path))
    }

    private func audit(_ action: String, by actor: StaffMember) -> AuditEntry {
        AuditEntry(
            recordedAt: start, actorId: actor.id, actorUsername: actor.username, action: action, targetKind: "handoff", targetId: "4",
            targetSlug: "", targetName: "hand-off of shift 4", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded,
            backendStatus: nil, requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil, actionId: nil)
    }

    private func handoff(shift: Int = 4) -> ShiftHandoff {
        ShiftHandoff(
            shiftIndex: shift, startsAt: start.addingTimeInterval(-7 * 86_400), endsAt: start, outgoing: alice, incoming: bob,
            digest: HandoffDigest(
                asOf: start, timeZone: "Europe/Rome", decisionsByKind: [.init(key: "library.approve", count: 2)],
                decisionsByPerson: [.init(key: "alice", count: 2)], queues: nil, alerts: [], outsideChanges: [], outsideChangeCount: 0,
                note: nil),
            builtAt: start)
    }

    private func message(_ handoff: ShiftHandoff, id: String) -> OutboxMessage {
        OutboxMessage(
            id: id, actionId: nil, recipientUserId: handoff.incoming.id, eventType: .shiftHandoff,
            payload: #"{"note":"\#(handoff.digest.note?.text ?? "")"}"#, headers: "{}", createdAt: start,
            dedupeKey: "handoff-\(handoff.shiftIndex)")
    }

    @Test("the first store of a hand-off lands with its message and the note written before it; a second store changes nothing")
    func storedOnce() async throws {
        try await withStore { store in
            // setup
            try await store.saveHandoffNote(shiftIndex: 4, author: alice, text: "  Watch report 12.  ", audit: audit("handoff.note", by: alice), now: start)
            // act
            let first = try await store.recordHandoff(handoff()) { message($0, id: "m1") }
            let second = try await store.recordHandoff(handoff()) { message($0, id: "m2") }
            // check
            #expect(first && !second)
            let stored = try #require(try await store.shiftHandoff(4))
            #expect(stored.digest.note == HandoffDigest.Note(author: "alice", text: "Watch report 12.", writtenAt: start))
            #expect(stored.digest.decisionCount == 2 && stored.state == .shown)
            let messages = try await store.outboxMessages(status: nil, eventType: .shiftHandoff, limit: 10)
            #expect(messages.map(\.id) == ["m1"])
            #expect(messages.first?.payload == #"{"note":"Watch report 12."}"#)
            #expect(messages.first?.recipientUserId == bob.id)
        }
    }

    @Test("after the hand-off the note cannot change: a follow-up can, from the person who handed over only")
    func noteFrozenFollowUpsFromOutgoing() async throws {
        try await withStore { store in
            // setup
            try await store.saveHandoffNote(shiftIndex: 4, author: alice, text: "first", audit: audit("handoff.note", by: alice), now: start)
            try await store.saveHandoffNote(shiftIndex: 4, author: alice, text: "edited", audit: audit("handoff.note", by: alice), now: start)
            _ = try await store.recordHandoff(handoff()) { message($0, id: "m1") }
            // act / check
            await #expect(throws: HandoffError.alreadyHandedOver) {
                try await store.saveHandoffNote(shiftIndex: 4, author: alice, text: "too late", audit: audit("handoff.note", by: alice), now: start)
            }
            await #expect(throws: HandoffError.notOutgoing) {
                try await store.addHandoffFollowUp(shiftIndex: 4, author: bob, text: "not mine", audit: audit("handoff.followUp", by: bob), now: start)
            }
            await #expect(throws: HandoffError.noSuchHandoff) {
                try await store.addHandoffFollowUp(shiftIndex: 5, author: alice, text: "no such", audit: audit("handoff.followUp", by: alice), now: start)
            }
            await #expect(throws: HandoffError.emptyNote) {
                try await store.addHandoffFollowUp(shiftIndex: 4, author: alice, text: " \n ", audit: audit("handoff.followUp", by: alice), now: start)
            }
            await #expect(throws: HandoffError.noteTooLong(4_001)) {
                try await store.addHandoffFollowUp(
                    shiftIndex: 4, author: alice, text: String(repeating: "é", count: 4_001), audit: audit("handoff.followUp", by: alice), now: start)
            }
            try await store.addHandoffFollowUp(
                shiftIndex: 4, author: alice, text: "Report 12 is done.", audit: audit("handoff.followUp", by: alice), now: start.addingTimeInterval(60))
            #expect(try await store.shiftHandoff(4)?.digest.note?.text == "edited")
            #expect(try await store.handoffFollowUps(shiftIndex: 4).map(\.text) == ["Report 12 is done."])
            // Two notes and one follow-up were audited; the refusals were not.
            #expect(try await store.auditEntries(limit: 10).map(\.action) == ["handoff.followUp", "handoff.note", "handoff.note"])
        }
    }

    @Test("only the person who took over dismisses, once; the hand-off then leaves their dashboard")
    func dismissal() async throws {
        try await withStore { store in
            // setup
            _ = try await store.recordHandoff(handoff()) { message($0, id: "m1") }
            #expect(try await store.shownHandoff(incomingID: bob.id)?.shiftIndex == 4)
            #expect(try await store.shownHandoff(incomingID: alice.id) == nil)
            // act / check
            await #expect(throws: HandoffError.notIncoming) {
                try await store.dismissHandoff(shiftIndex: 4, by: alice, audit: audit("handoff.dismiss", by: alice), now: start)
            }
            try await store.dismissHandoff(shiftIndex: 4, by: bob, audit: audit("handoff.dismiss", by: bob), now: start.addingTimeInterval(120))
            await #expect(throws: HandoffError.alreadyDismissed) {
                try await store.dismissHandoff(shiftIndex: 4, by: bob, audit: audit("handoff.dismiss", by: bob), now: start)
            }
            await #expect(throws: HandoffError.noSuchHandoff) {
                try await store.dismissHandoff(shiftIndex: 9, by: bob, audit: audit("handoff.dismiss", by: bob), now: start)
            }
            let stored = try #require(try await store.shiftHandoff(4))
            #expect(stored.state == .dismissed && stored.dismissedBy == "bob" && stored.dismissedAt == start.addingTimeInterval(120))
            #expect(try await store.shownHandoff(incomingID: bob.id) == nil)
            #expect(try await store.auditEntries(limit: 10).map(\.action) == ["handoff.dismiss"])
        }
    }
}
