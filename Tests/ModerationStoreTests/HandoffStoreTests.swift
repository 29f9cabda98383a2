import Foundation
import GRDB
import Testing

@testable import ModerationStore

/// Hand-offs in the store: one row and one message per hand-off instant whoever stores it, the
/// outgoing person's pending note frozen into the digest at the hand-off, follow-ups only from
/// the person who handed over, dismissal only by the person who took over, once; and the
/// migration from shift numbers, which loses no note.
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
            recordedAt: start, actorId: actor.id, actorUsername: actor.username, action: action, targetKind: "handoff", targetId: "1",
            targetSlug: "", targetName: "hand-off from alice to bob", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded,
            backendStatus: nil, requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil, actionId: nil)
    }

    private func planned(at endsAt: Date? = nil) -> ShiftHandoff.Planned {
        let endsAt = endsAt ?? start
        return ShiftHandoff.Planned(
            startsAt: endsAt.addingTimeInterval(-7 * 86_400), endsAt: endsAt, outgoing: alice, incoming: bob,
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
            dedupeKey: "handoff-\(handoff.id)")
    }

    @Test("the first store of a hand-off lands with its message and the note written before it; a second store changes nothing")
    func storedOnce() async throws {
        try await withStore { store in
            // setup
            try await store.savePendingHandoffNote(author: alice, text: "  Watch report 12.  ", audit: audit("handoff.note", by: alice), now: start)
            // act
            let first = try await store.recordHandoff(planned()) { message($0, id: "m1") }
            let second = try await store.recordHandoff(planned()) { message($0, id: "m2") }
            // check
            let landed = try #require(first)
            #expect(second == nil)
            let stored = try #require(try await store.shiftHandoff(at: start))
            #expect(stored == landed)
            #expect(try await store.pendingHandoffNote(authorID: alice.id) == nil)
            #expect(try await store.handoffNote(handoffID: stored.id)?.text == "Watch report 12.")
            #expect(stored.digest.note == HandoffDigest.Note(author: "alice", text: "Watch report 12.", writtenAt: start))
            #expect(stored.digest.decisionCount == 2 && stored.state == .shown)
            let messages = try await store.outboxMessages(status: nil, eventType: .shiftHandoff, limit: 10)
            #expect(messages.map(\.id) == ["m1"])
            #expect(messages.first?.payload == #"{"note":"Watch report 12."}"#)
            #expect(messages.first?.recipientUserId == bob.id)
        }
    }

    @Test("after the hand-off its note cannot change: a new note waits for the next hand-off, and follow-ups come from the person who handed over only")
    func noteFrozenFollowUpsFromOutgoing() async throws {
        try await withStore { store in
            // setup
            try await store.savePendingHandoffNote(author: alice, text: "first", audit: audit("handoff.note", by: alice), now: start)
            try await store.savePendingHandoffNote(author: alice, text: "edited", audit: audit("handoff.note", by: alice), now: start)
            let handoff = try #require(try await store.recordHandoff(planned()) { message($0, id: "m1") })
            // act / check
            try await store.savePendingHandoffNote(author: alice, text: "for next time", audit: audit("handoff.note", by: alice), now: start)
            await #expect(throws: HandoffError.notOutgoing) {
                try await store.addHandoffFollowUp(handoffID: handoff.id, author: bob, text: "not mine", audit: audit("handoff.followUp", by: bob), now: start)
            }
            await #expect(throws: HandoffError.noSuchHandoff) {
                try await store.addHandoffFollowUp(
                    handoffID: handoff.id + 1, author: alice, text: "no such", audit: audit("handoff.followUp", by: alice), now: start)
            }
            await #expect(throws: HandoffError.emptyNote) {
                try await store.addHandoffFollowUp(handoffID: handoff.id, author: alice, text: " \n ", audit: audit("handoff.followUp", by: alice), now: start)
            }
            await #expect(throws: HandoffError.noteTooLong(4_001)) {
                try await store.addHandoffFollowUp(
                    handoffID: handoff.id, author: alice, text: String(repeating: "é", count: 4_001), audit: audit("handoff.followUp", by: alice),
                    now: start)
            }
            // A browser's CR LF line breaks count once, as the textarea's maxlength counted them.
            let browserLines = String(repeating: "line\r\n", count: 800)
            try await store.addHandoffFollowUp(
                handoffID: handoff.id, author: alice, text: browserLines, audit: audit("handoff.followUp", by: alice), now: start.addingTimeInterval(30))
            try await store.addHandoffFollowUp(
                handoffID: handoff.id, author: alice, text: "Report 12 is done.", audit: audit("handoff.followUp", by: alice),
                now: start.addingTimeInterval(60))
            #expect(try await store.shiftHandoff(id: handoff.id)?.digest.note?.text == "edited")
            #expect(try await store.handoffNote(handoffID: handoff.id)?.text == "edited")
            #expect(try await store.pendingHandoffNote(authorID: alice.id)?.text == "for next time")
            let expectedLines = Array(repeating: "line", count: 800).joined(separator: "\n")
            #expect(try await store.handoffFollowUps(handoffID: handoff.id).map(\.text) == [expectedLines, "Report 12 is done."])
            // The next hand-off at another instant takes the new note.
            let later = try #require(try await store.recordHandoff(planned(at: start.addingTimeInterval(86_400))) { message($0, id: "m2") })
            #expect(later.id != handoff.id && later.digest.note?.text == "for next time")
            // Three notes and two follow-ups were audited; the refusals were not.
            #expect(
                try await store.auditEntries(limit: 10).map(\.action) == [
                    "handoff.followUp", "handoff.followUp", "handoff.note", "handoff.note", "handoff.note",
                ])
        }
    }

    @Test("a note saved for a hand-off whose digest landed meanwhile is refused, not kept for a later hand-off")
    func noteAfterDigestLanded() async throws {
        try await withStore { store in
            // setup: alice's hand-off at `start` is stored while she writes
            _ = try #require(try await store.recordHandoff(planned()) { message($0, id: "m1") })
            // act / check
            await #expect(throws: HandoffError.handedOverMeanwhile) {
                try await store.savePendingHandoffNote(
                    author: alice, text: "last minute", audit: audit("handoff.note", by: alice), now: start, handoffNotBuiltAt: start)
            }
            #expect(try await store.pendingHandoffNote(authorID: alice.id) == nil)
            #expect(try await store.auditEntries(limit: 10).isEmpty)
        }
    }

    @Test("only the person who took over dismisses, once; the hand-off then leaves their dashboard")
    func dismissal() async throws {
        try await withStore { store in
            // setup
            let handoff = try #require(try await store.recordHandoff(planned()) { message($0, id: "m1") })
            #expect(try await store.shownHandoff(incomingID: bob.id)?.id == handoff.id)
            #expect(try await store.shownHandoff(incomingID: alice.id) == nil)
            // act / check
            await #expect(throws: HandoffError.notIncoming) {
                try await store.dismissHandoff(id: handoff.id, by: alice, audit: audit("handoff.dismiss", by: alice), now: start)
            }
            try await store.dismissHandoff(id: handoff.id, by: bob, audit: audit("handoff.dismiss", by: bob), now: start.addingTimeInterval(120))
            await #expect(throws: HandoffError.alreadyDismissed) {
                try await store.dismissHandoff(id: handoff.id, by: bob, audit: audit("handoff.dismiss", by: bob), now: start)
            }
            await #expect(throws: HandoffError.noSuchHandoff) {
                try await store.dismissHandoff(id: handoff.id + 9, by: bob, audit: audit("handoff.dismiss", by: bob), now: start)
            }
            let stored = try #require(try await store.shiftHandoff(id: handoff.id))
            #expect(stored.state == .dismissed && stored.dismissedBy == "bob" && stored.dismissedAt == start.addingTimeInterval(120))
            #expect(try await store.shownHandoff(incomingID: bob.id) == nil)
            #expect(try await store.auditEntries(limit: 10).map(\.action) == ["handoff.dismiss"])
        }
    }

    @Test(
        "the move from shift numbers keeps every hand-off at its old number and every note: handed-over notes with their hand-off, the others joined as their author's pending note"
    )
    func migrationFromShiftNumbers() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // setup: the database as the shift-number release left it, after a rotation change: hand-off
        // of shift 0 stored, notes for shifts 0 (handed over), 1 and 0 again (never handed over)
        let queue = try DatabaseQueue(path: path)
        try ModerationStoreMigrations.migrator.migrate(queue, upTo: "v22-seams-budget-spending")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO shiftHandoff (shiftIndex, startsAt, endsAt, outgoingId, outgoingUsername, incomingId, incomingUsername, digest, builtAt)
                    VALUES (0, '2026-11-01 08:00:00.000', '2026-11-02 08:00:00.000', 101, 'alice', 102, 'bob', ?, '2026-11-02 08:00:30.000');
                    INSERT INTO handoffNote (id, shiftIndex, kind, authorId, authorUsername, text, writtenAt) VALUES
                        (1, 0, 'note', 101, 'alice', 'handed over', '2026-11-01 20:00:00.000'),
                        (2, 0, 'followUp', 101, 'alice', 'a follow-up', '2026-11-02 09:00:00.000'),
                        (3, 1, 'note', 102, 'bob', 'written before the change', '2026-11-02 12:00:00.000'),
                        (4, 3, 'note', 102, 'bob', 'and after it', '2026-11-02 13:00:00.000');
                    """, arguments: [try planned().digest.json()])
        }
        // act
        let store = try ModerationStore(path: path)
        // check
        let old = try #require(try await store.shiftHandoff(id: 0))
        #expect(old.outgoing == alice && old.incoming == bob)
        #expect(try await store.handoffNote(handoffID: 0)?.text == "handed over")
        #expect(try await store.handoffFollowUps(handoffID: 0).map(\.text) == ["a follow-up"])
        #expect(try await store.pendingHandoffNote(authorID: bob.id)?.text == "written before the change\n\nand after it")
        #expect(try await store.pendingHandoffNote(authorID: alice.id) == nil)
        // A new hand-off at a new instant gets a new number and takes bob's note.
        let bobsHandoff = ShiftHandoff.Planned(
            startsAt: start.addingTimeInterval(-86_400), endsAt: start, outgoing: bob, incoming: alice, digest: planned().digest, builtAt: start)
        let next = try #require(try await store.recordHandoff(bobsHandoff) { message($0, id: "m1") })
        #expect(next.id == 1 && next.digest.note?.text == "written before the change\n\nand after it")
        let reopened = try DatabaseQueue(path: path)
        #expect(try reopened.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)
    }
}
