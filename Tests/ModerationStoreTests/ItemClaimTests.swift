import Foundation
import ModerationStore
import Testing

@Suite("ModerationStore: claims on items (one holder at a time, expiry, release, take-over, decisions)")
struct ItemClaimTests {
    private let library = ItemClaim.Target(kind: .library, key: "corner-books")
    private let fifteenMinutes: TimeInterval = 15 * 60

    /// Two stores (two pools, as two console processes would have) on one temporary file.
    private func withTwoStores(_ body: (ModerationStore, ModerationStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("claims-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        try await body(try ModerationStore(path: path), try ModerationStore(path: path))
    }

    private func audit(now: Date) -> AuditEntry {
        AuditEntry(
            recordedAt: now, actorId: 3, actorUsername: "maria", action: "claim.takeOver", targetKind: "library", targetId: "corner-books",
            targetSlug: "", targetName: "library corner-books", statusBefore: "held by staff", statusAfter: "held by maria", reason: "",
            outcome: .succeeded, backendStatus: nil, requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil,
            actionId: nil)
    }

    @Test("only an active claim can end, and it ends in exactly one way")
    func transitions() {
        #expect(ItemClaim.State.active.allowedNext == [.released, .expired, .decided, .takenOver])
        for state in ItemClaim.State.allCases where state != .active {
            #expect(state.allowedNext.isEmpty, "\(state)")
            #expect(ItemClaim.State.sources(of: state) == [.active])
        }
    }

    @Test("two staff claiming at once from two processes: exactly one wins, the other is told who holds it")
    func concurrentClaims() async throws {
        try await withTwoStores { first, second in
            let now = Date()
            for round in 0..<20 {
                // setup: a fresh item each round, so each round is a race of its own
                let target = ItemClaim.Target(kind: .report, key: String(100 + round))
                // act
                let outcomes = try await withThrowingTaskGroup(of: (String, ClaimOutcome).self) { group in
                    group.addTask { await ("staff", try first.claim(target, holderId: 2, holderUsername: "staff", now: now, duration: fifteenMinutes)) }
                    group.addTask { await ("maria", try second.claim(target, holderId: 3, holderUsername: "maria", now: now, duration: fifteenMinutes)) }
                    var all: [(String, ClaimOutcome)] = []
                    for try await outcome in group { all.append(outcome) }
                    return all
                }
                // check
                var winners: [String] = []
                var toldHolder: [String] = []
                for (_, outcome) in outcomes {
                    switch outcome {
                    case .claimed(let claim): winners.append(claim.holderUsername)
                    case .heldByOther(let claim, let minutesLeft):
                        toldHolder.append(claim.holderUsername)
                        #expect(minutesLeft == 15)
                    }
                }
                #expect(winners.count == 1, "round \(round): \(outcomes)")
                #expect(toldHolder == winners, "the loser is told the winner's name")
                #expect(try await first.claims(on: target).count == 1, "one row: the loser inserted nothing")
            }
        }
    }

    @Test("a claim expires after its duration: others then see nothing and can claim it; minutes left round up, never 0")
    func expiry() async throws {
        try await withTwoStores { store, _ in
            // setup
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            guard case .claimed(let claim) = try await store.claim(library, holderId: 2, holderUsername: "staff", now: start, duration: fifteenMinutes) else {
                Issue.record("the first claim wins")
                return
            }
            // check: minutes left as people read them
            #expect(claim.minutesLeft(at: start) == 15)
            #expect(claim.minutesLeft(at: start.addingTimeInterval(7 * 60 + 1)) == 8)
            #expect(claim.minutesLeft(at: start.addingTimeInterval(14 * 60 + 59)) == 1)
            #expect(try await store.activeClaim(library, now: start.addingTimeInterval(14 * 60))?.holderUsername == "staff")
            // act: the clock passes the expiry
            let later = start.addingTimeInterval(fifteenMinutes)
            // check
            #expect(try await store.activeClaim(library, now: later) == nil)
            #expect(try await store.activeClaims(kind: .library, keys: [library.key], now: later).isEmpty)
            let next = try await store.claim(library, holderId: 3, holderUsername: "maria", now: later, duration: fifteenMinutes)
            guard case .claimed(let taken) = next else {
                Issue.record("an expired claim does not hold the item: \(next)")
                return
            }
            #expect(taken.holderUsername == "maria")
            let history = try await store.claims(on: library)
            #expect(history.map(\.state) == [.active, .expired])
            #expect(history.last?.endedAt == claim.expiresAt, "an expired claim ends when it expired")
            #expect(try await store.expireClaims(now: later.addingTimeInterval(fifteenMinutes)) == 1, "the sweep ends maria's in turn")
        }
    }

    @Test("a claim just made reads as its full duration once stored, whatever the clock's sub-millisecond digits")
    func minutesLeftAfterStorage() async throws {
        try await withTwoStores { store, _ in
            // setup: a clock whose fraction the database's millisecond times round up
            let now = Date(timeIntervalSince1970: 1_800_000_000.0006)
            _ = try await store.claim(library, holderId: 2, holderUsername: "staff", now: now, duration: fifteenMinutes)
            // act
            let stored = try #require(try await store.activeClaim(library, now: now))
            // check
            #expect(stored.minutesLeft(at: now) == 15, "not 16: \(stored.expiresAt.timeIntervalSince(now)) s left")
            #expect(stored.minutesLeft(at: now.addingTimeInterval(60)) == 14)
        }
    }

    @Test("only the holder can release a claim; afterwards anyone can claim the item")
    func releaseOnlyByHolder() async throws {
        try await withTwoStores { store, _ in
            // setup
            let now = Date()
            _ = try await store.claim(library, holderId: 2, holderUsername: "staff", now: now, duration: fifteenMinutes)
            // act + check: someone else cannot release it, and is told who holds it
            do {
                try await store.releaseClaim(library, holderId: 3, holderUsername: "maria", now: now)
                Issue.record("maria released staff's claim")
            } catch ClaimStoreError.notHeld(let current) {
                #expect(current?.holderUsername == "staff")
            }
            try await store.releaseClaim(library, holderId: 2, holderUsername: "staff", now: now)
            #expect(try await store.activeClaim(library, now: now) == nil)
            #expect(try await store.claims(on: library).first?.state == .released)
            await #expect(throws: ClaimStoreError.self, "released twice") {
                try await store.releaseClaim(library, holderId: 2, holderUsername: "staff", now: now)
            }
            guard case .claimed = try await store.claim(library, holderId: 3, holderUsername: "maria", now: now, duration: fifteenMinutes) else {
                Issue.record("a released item can be claimed")
                return
            }
        }
    }

    @Test("taking over ends the old claim, starts the new one and writes the audit entry, together")
    func takeOverAudited() async throws {
        try await withTwoStores { store, other in
            // setup
            let now = Date()
            guard case .claimed(let old) = try await store.claim(library, holderId: 2, holderUsername: "staff", now: now, duration: fifteenMinutes),
                let oldID = old.id
            else {
                Issue.record("the first claim wins")
                return
            }
            // act
            let new = try await other.takeOverClaim(
                oldID, target: library, holderId: 3, holderUsername: "maria", now: now, duration: fifteenMinutes, audit: audit(now: now))
            // check
            #expect(new.holderUsername == "maria" && new.state == .active)
            let history = try await store.claims(on: library)
            #expect(history.map(\.state) == [.active, .takenOver])
            #expect(history.last?.endedBy == "maria")
            let entry = try #require(try await store.auditEntries().first)
            #expect(entry.action == "claim.takeOver" && entry.actorUsername == "maria" && entry.targetId == "corner-books")
            #expect(try await store.verifyAuditChain() == .intact(entries: 1, head: entry.hash))
            // A second take-over of the same (now ended) claim changes nothing and writes no entry.
            await #expect(throws: ClaimStoreError.self) {
                try await store.takeOverClaim(
                    oldID, target: library, holderId: 4, holderUsername: "jonas", now: now, duration: fifteenMinutes, audit: audit(now: now))
            }
            #expect(try await store.auditEntries().count == 1)
            #expect(try await store.activeClaim(library, now: now)?.holderUsername == "maria")
        }
    }

    @Test("recording a decision on a claimed item ends the claim as decided, by whoever decided")
    func decisionEndsClaim() async throws {
        try await withTwoStores { store, _ in
            // setup
            let now = Date()
            _ = try await store.claim(library, holderId: 2, holderUsername: "staff", now: now, duration: fifteenMinutes)
            let untouched = ItemClaim.Target(kind: .library, key: "other-library")
            _ = try await store.claim(untouched, holderId: 2, holderUsername: "staff", now: now, duration: fifteenMinutes)
            // act
            _ = try await store.record(
                ModerationAction(
                    idempotencyKey: "k1", actorId: 3, actorUsername: "maria", targetKind: .library, targetKey: library.key, statusSeen: .pending,
                    statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", now: now))
            // check
            #expect(try await store.activeClaim(library, now: now) == nil)
            let ended = try #require(try await store.claims(on: library).first)
            #expect(ended.state == .decided && ended.endedBy == "maria")
            #expect(try await store.activeClaim(untouched, now: now)?.holderUsername == "staff", "claims on other items stay")
        }
    }
}
