import Foundation
import ModerationStore
import Testing

/// Overdue episodes in the store: only the allowed moves, one episode per queue however many
/// processes try, and each message stored once with the change that sends it.
@Suite("ModerationStore: queue alerts")
struct QueueAlertStoreTests {
    let alice = StaffMember(id: 11, username: "alice")
    let bob = StaffMember(id: 12, username: "bob")
    let carol = StaffMember(id: 13, username: "carol")
    let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// Two stores (two pools, as two console processes would have) on one temporary file.
    private func withTwoStores(_ body: (ModerationStore, ModerationStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("alerts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        try await body(try ModerationStore(path: path), try ModerationStore(path: path))
    }

    private func message(to staff: StaffMember, at now: Date) -> ModerationStore.QueueAlertMessage {
        { _, _, key in
            OutboxMessage(
                id: UUID().uuidString, actionId: nil, recipientUserId: staff.id, eventType: .queueOverdue,
                payload: #"{"key":"\#(key)"}"#, headers: "{}", createdAt: now)
        }
    }

    private func audit(_ staff: StaffMember, at now: Date) -> AuditEntry {
        AuditEntry(
            recordedAt: now, actorId: staff.id, actorUsername: staff.username, action: "alert.acknowledge", targetKind: "queueAlert",
            targetId: "", targetSlug: "", targetName: "", statusBefore: "open", statusAfter: "acknowledged", reason: "",
            outcome: .applied, backendStatus: nil, requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil,
            actionId: nil)
    }

    private func open(_ store: ModerationStore, _ queue: ModerationQueue = .reports, telling staff: StaffMember?) async throws -> QueueAlert? {
        try await store.openQueueAlert(
            queue, overdueCount: 3, oldestCreatedAt: start.addingTimeInterval(-90_000), targetMinutes: 1_440,
            telling: staff, now: start, message: message(to: staff ?? bob, at: start))
    }

    @Test("closed goes nowhere; acknowledged only closes; open and escalated may be acknowledged, escalated or closed")
    func transitions() {
        #expect(QueueAlert.State.closed.allowedNext.isEmpty)
        #expect(QueueAlert.State.acknowledged.allowedNext == [.closed])
        #expect(Set(QueueAlert.State.sources(of: .acknowledged)) == [.open, .escalated])
        #expect(Set(QueueAlert.State.sources(of: .escalated)) == [.open, .escalated])
        #expect(Set(QueueAlert.State.sources(of: .closed)) == [.open, .acknowledged, .escalated])
    }

    @Test("two stores on one file racing to open an episode of one queue: exactly one opens and one message is stored")
    func oneActiveEpisodePerQueue() async throws {
        try await withTwoStores { first, second async throws in
            for round in 0..<5 {
                // act: both processes see the queue overdue at once
                async let one = Task { try await open(first, telling: alice) }.value
                async let two = Task { try await open(second, telling: alice) }.value
                let opened = [try await one, try await two].compactMap { $0 }
                // check
                #expect(opened.count == 1, "round \(round)")
                let alert = try #require(opened.first)
                #expect(try await first.activeQueueAlerts().map(\.id) == [alert.id])
                #expect(try await first.outboxMessages(eventType: .queueOverdue).filter { $0.dedupeKey == "alert-\(alert.id)-notice-1" }.count == 1)
                // the episode ends: the next one may open
                #expect(try await second.closeQueueAlert(id: alert.id, now: start))
            }
            #expect(try await first.outboxMessages(eventType: .queueOverdue).count == 5)
            #expect(try await first.recentQueueAlerts(limit: 50).allSatisfy { $0.state == .closed })
        }
    }

    @Test("an episode per queue: reports overdue does not stop photos from opening")
    func queuesAreIndependent() async throws {
        try await withTwoStores { store, _ async throws in
            #expect(try await open(store, .reports, telling: alice) != nil)
            #expect(try await open(store, .photos, telling: alice) != nil)
            #expect(try await open(store, .reports, telling: alice) == nil)
            #expect(try await store.activeQueueAlerts().map(\.queue) == [.reports, .photos])
        }
    }

    @Test("acknowledging is audited once; again it says who did it; a closed episode says closed; an acknowledged one cannot escalate")
    func acknowledgement() async throws {
        try await withTwoStores { store, other async throws in
            // setup
            let alert = try #require(try await open(store, telling: alice))
            let auditBefore = try await store.auditEntries().count
            // act
            let first = try await store.acknowledgeQueueAlert(id: alert.id, by: alice, audit: audit(alice, at: start), now: start)
            let again = try await other.acknowledgeQueueAlert(id: alert.id, by: bob, audit: audit(bob, at: start), now: start)
            let escalated = try await store.escalateQueueAlert(alert, telling: bob, now: start, message: message(to: bob, at: start))
            // check
            guard case .acknowledged(let acknowledged) = first else { Issue.record("first: \(first)"); return }
            #expect(acknowledged.state == .acknowledged && acknowledged.acknowledgedByUsername == "alice")
            guard case .alreadyAcknowledged(let seen) = again else { Issue.record("again: \(again)"); return }
            #expect(seen.acknowledgedByUsername == "alice")
            #expect(!escalated)
            let entries = try await store.auditEntries()
            #expect(entries.count == auditBefore + 1)
            #expect(entries.first?.action == "alert.acknowledge" && entries.first?.targetId == String(alert.id))
            // act: the queue goes under target; acknowledging now says so
            #expect(try await store.closeQueueAlert(id: alert.id, now: start))
            #expect(try await !store.closeQueueAlert(id: alert.id, now: start))
            let late = try await store.acknowledgeQueueAlert(id: alert.id, by: bob, audit: audit(bob, at: start), now: start)
            guard case .alreadyClosed = late else { Issue.record("late: \(late)"); return }
            #expect(try await store.acknowledgeQueueAlert(id: 9_999, by: bob, audit: audit(bob, at: start), now: start) == .notFound)
            #expect(try await store.auditEntries().count == auditBefore + 1)
        }
    }

    @Test("escalation moves the holder and its level, once per level, each with its own keyed message and notice")
    func escalation() async throws {
        try await withTwoStores { store, other async throws in
            // setup
            let alert = try #require(try await open(store, telling: alice))
            let later = start.addingTimeInterval(1_800)
            // act: both processes escalate what they read
            let won = try await store.escalateQueueAlert(alert, telling: bob, now: later, message: message(to: bob, at: later))
            let lost = try await other.escalateQueueAlert(alert, telling: bob, now: later, message: message(to: bob, at: later))
            // check
            #expect(won && !lost)
            let escalated = try #require(try await store.queueAlert(id: alert.id))
            #expect(escalated.state == .escalated && escalated.escalationLevel == 1)
            #expect(escalated.notifiedStaffId == bob.id && escalated.firstNotifiedStaffId == alice.id && escalated.heldSince == later)
            let keys = try await store.outboxMessages(eventType: .queueOverdue).compactMap(\.dedupeKey).sorted()
            #expect(keys == ["alert-\(alert.id)-escalation-1", "alert-\(alert.id)-notice-1"])
            let notices = try #require(try await store.queueAlertNotices(alertIDs: [alert.id])[alert.id])
            #expect(notices.map(\.kind) == [.notice, .escalation])
            #expect(notices.map(\.staffUsername) == ["alice", "bob"])
            // act: a second escalation from the fresh read goes to level 2
            #expect(try await store.escalateQueueAlert(escalated, telling: carol, now: later, message: message(to: carol, at: later)))
            #expect(try await store.queueAlert(id: alert.id)?.escalationLevel == 2)
        }
    }

    @Test("a repeat goes once per reading of the episode and keeps the holder's acknowledgement clock")
    func repeats() async throws {
        try await withTwoStores { store, other async throws in
            // setup
            let alert = try #require(try await open(store, telling: alice))
            let hourLater = start.addingTimeInterval(3_600)
            // act
            let first = try await store.remindQueueAlert(alert, telling: alice, now: hourLater, message: message(to: alice, at: hourLater))
            let second = try await other.remindQueueAlert(alert, telling: alice, now: hourLater, message: message(to: alice, at: hourLater))
            // check
            #expect(first && !second)
            let reminded = try #require(try await store.queueAlert(id: alert.id))
            #expect(reminded.lastNotifiedAt == hourLater && reminded.heldSince == start)
            #expect(
                try await store.outboxMessages(eventType: .queueOverdue).compactMap(\.dedupeKey).sorted()
                    == ["alert-\(alert.id)-notice-1", "alert-\(alert.id)-notice-2"])
            #expect(try await store.queueAlertNotices(alertIDs: [alert.id])[alert.id]?.map(\.kind) == [.notice, .repeat])
        }
    }

    @Test("with nobody on call the episode opens anyway, notes that nobody was told, and the first person found gets notice 1")
    func nobodyOnCall() async throws {
        try await withTwoStores { store, _ async throws in
            // act
            let alert = try #require(try await open(store, telling: nil))
            // check
            #expect(alert.notifiedStaffId == nil && alert.lastNotifiedAt == nil)
            #expect(try await store.outboxMessages(eventType: .queueOverdue).isEmpty)
            #expect(try await store.queueAlertNotices(alertIDs: [alert.id])[alert.id]?.map(\.staffId) == [nil])
            // act: someone is on call now
            #expect(try await store.remindQueueAlert(alert, telling: bob, now: start, message: message(to: bob, at: start)))
            #expect(try await store.outboxMessages(eventType: .queueOverdue).compactMap(\.dedupeKey) == ["alert-\(alert.id)-notice-1"])
            #expect(try await store.queueAlert(id: alert.id)?.firstNotifiedStaffId == bob.id)
        }
    }

    @Test("escalation follows the rotation after the one told last, skips them, and stops before wrapping to the first told")
    func escalationOrder() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Rome"))
        let rotation = try Rotation(
            members: [alice, bob, carol], shiftDays: 1, handoff: try #require(LocalTime("09:00")), timeZone: zone,
            startDate: try #require(LocalDate("2026-11-02")))
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-03T12:00:00Z"))  // bob's shift
        #expect(rotation.escalation(after: bob.id, firstTold: bob.id, at: now) == carol)
        #expect(rotation.escalation(after: carol.id, firstTold: bob.id, at: now) == alice)
        #expect(rotation.escalation(after: alice.id, firstTold: bob.id, at: now) == nil)
        // someone covering by an override (not in the rotation): the shift's member comes next
        #expect(rotation.escalation(after: 99, firstTold: 99, at: now) == bob)
        let alone = try Rotation(
            members: [alice], shiftDays: 1, handoff: try #require(LocalTime("09:00")), timeZone: zone,
            startDate: try #require(LocalDate("2026-11-02")))
        #expect(alone.escalation(after: alice.id, firstTold: alice.id, at: now) == nil)
    }
}
