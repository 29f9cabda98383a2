import Foundation
import ModerationStore
import ModerationVocabulary
import Testing

@Suite("ModerationStore: the action state machine, claims and idempotency keys")
struct ActionStateMachineTests {
    /// Two stores (two pools, as two processes would have) on one temporary file.
    private func withTwoStores(_ body: (ModerationStore, ModerationStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("actions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        try await body(try ModerationStore(path: path), try ModerationStore(path: path))
    }

    private func action(key: String = UUID().uuidString, target: String = "corner-books", wanted: ItemStatus = .approved, now: Date) -> ModerationAction {
        ModerationAction(
            idempotencyKey: key, actorId: 2, actorUsername: "staff", targetKind: .library, targetKey: target, statusSeen: .pending,
            statusWanted: wanted, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", now: now)
    }

    private func audit(now: Date) -> AuditEntry {
        AuditEntry(
            recordedAt: now, actorId: 2, actorUsername: "staff", action: "library.approve", targetKind: "library", targetId: "1",
            targetSlug: "corner-books", targetName: "Corner Books", statusBefore: "pending", statusAfter: "approved", reason: "",
            outcome: .applied, backendStatus: 200, requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil,
            actionId: nil)
    }

    @Test("final states go nowhere; every move into sending starts from a claimable state")
    func transitions() {
        for state in ModerationAction.State.allCases where state.isFinal {
            #expect(state.allowedNext.isEmpty, "\(state)")
        }
        #expect(Set(ModerationAction.State.sources(of: .sending)) == [.queued, .waiting, .sending])
        #expect(ModerationAction.State.sources(of: .queued) == [.parked])
    }

    @Test("one claim wins: the other store gets nothing, and cannot finish or release what it does not hold")
    func oneClaimWins() async throws {
        try await withTwoStores { first, second in
            // setup
            let now = Date()
            let id = try #require(try await first.record(action(now: now)).action.id)
            // act
            let won = try await first.claim(id, owner: "one", leaseUntil: now.addingTimeInterval(30), now: now)
            let lost = try await second.claim(id, owner: "two", leaseUntil: now.addingTimeInterval(30), now: now)
            // check
            #expect(won?.state == .sending && won?.claimedBy == "one")
            #expect(lost == nil)
            await #expect(throws: ActionStoreError.self) {
                try await second.finish(
                    id, owner: "two", state: .conflict, message: "x", backendStatus: nil, audit: audit(now: now), notifications: [], now: now)
            }
            await #expect(throws: ActionStoreError.self) {
                try await second.release(id, owner: "two", to: .waiting, nextAttemptAt: now, message: "x", backendStatus: nil, now: now)
            }
            try await first.finish(
                id, owner: "one", state: .applied, message: "Approved.", backendStatus: 200, audit: audit(now: now), notifications: [], now: now)
            #expect(try await second.action(id: id)?.state == .applied)
            #expect(try await second.auditEntries().count == 1)
            await #expect(throws: ActionStoreError.self, "a finished action is never reopened") {
                try await first.finish(id, owner: "one", state: .failed, message: "x", backendStatus: nil, audit: audit(now: now), notifications: [], now: now)
            }
        }
    }

    @Test("a claim whose lease expired (its runner died) is taken over; a live one is not")
    func leaseExpiry() async throws {
        try await withTwoStores { first, second in
            // setup: a PATCH was started under a lease
            let now = Date()
            let id = try #require(try await first.record(action(now: now)).action.id)
            _ = try await first.claim(id, owner: "one", leaseUntil: now.addingTimeInterval(10), now: now)
            try await first.beginSend(id, owner: "one", now: now)
            // act / check
            #expect(try await second.dueActions(now: now.addingTimeInterval(5)).isEmpty, "a live claim is not due")
            #expect(try await second.claim(id, owner: "two", leaseUntil: now.addingTimeInterval(40), now: now.addingTimeInterval(5)) == nil)
            let resumed = try await second.claim(id, owner: "two", leaseUntil: now.addingTimeInterval(40), now: now.addingTimeInterval(11))
            #expect(resumed?.claimedBy == "two")
            #expect(resumed?.unknownOutcomes == 1, "the interrupted PATCH may have landed")
            await #expect(throws: ActionStoreError.self) {
                try await first.renewLease(id, owner: "one", until: now.addingTimeInterval(60), now: now.addingTimeInterval(11))
            }
        }
    }

    @Test("a runner whose lease ran out may not start a PATCH, even before anyone took the action over")
    func noSendAfterLeaseExpiry() async throws {
        try await withTwoStores { first, _ in
            // setup: claimed under a 10-second lease
            let now = Date()
            let id = try #require(try await first.record(action(now: now)).action.id)
            _ = try await first.claim(id, owner: "one", leaseUntil: now.addingTimeInterval(10), now: now)

            // act / check: at 11 s another runner may claim it at any moment, so "one" must not send
            let refusal = await #expect(throws: ActionStoreError.self) { try await first.beginSend(id, owner: "one", now: now.addingTimeInterval(11)) }
            guard case .lostClaim(actionID: id)? = refusal else {
                Issue.record("expected lostClaim, got \(String(describing: refusal))")
                return
            }
            let action = try #require(try await first.action(id: id))
            #expect(action.attempts == 0 && action.unknownOutcomes == 0, "nothing was counted as sent")
            try await first.beginSend(id, owner: "one", now: now.addingTimeInterval(9))
        }
    }

    @Test("a send answered with a refusal is known not applied; local failures count up and reset")
    func sendOutcomes() async throws {
        try await withTwoStores { store, _ in
            let now = Date()
            let id = try #require(try await store.record(action(now: now)).action.id)
            _ = try await store.claim(id, owner: "one", leaseUntil: now.addingTimeInterval(30), now: now)
            try await store.beginSend(id, owner: "one", now: now)
            try await store.release(id, owner: "one", to: .waiting, nextAttemptAt: now, message: "502", backendStatus: nil, sendNotApplied: true, now: now)
            var stored = try #require(try await store.action(id: id))
            #expect(stored.attempts == 1 && stored.unknownOutcomes == 0 && stored.state == .waiting && stored.claimedBy == nil)
            _ = try await store.claim(id, owner: "one", leaseUntil: now.addingTimeInterval(30), now: now)
            try await store.release(id, owner: "one", to: .waiting, nextAttemptAt: now, message: "busy", backendStatus: nil, localFailure: true, now: now)
            stored = try #require(try await store.action(id: id))
            #expect(stored.localFailures == 1)
        }
    }

    @Test("an idempotency key answers its one action; reused for another decision or item it is refused")
    func keys() async throws {
        try await withTwoStores { store, _ in
            let now = Date()
            let first = try await store.record(action(key: "k", now: now))
            let again = try await store.record(action(key: "k", now: now))
            #expect(first.isNew && !again.isNew && again.action.id == first.action.id)
            await #expect(throws: ActionStoreError.self) { try await store.record(action(key: "k", wanted: .rejected, now: now)) }
            await #expect(throws: ActionStoreError.self) { try await store.record(action(key: "k", target: "other-corner", now: now)) }
        }
    }
}
