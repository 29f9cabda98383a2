import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// The hand-off digest, built by `HandoffService` with an injected clock from a real SQLite
/// file: decisions from the audit log, what waits from the mirror, the note, and its message.
@Suite("Hand-offs: the digest and its message", .timeLimit(.minutes(3)))
struct HandoffServiceTests {
    private let alice = StaffMember(id: 101, username: "alice")
    private let bob = StaffMember(id: 102, username: "bob")
    private let carol = StaffMember(id: 103, username: "carol")
    /// Shift 0 runs from 2026-11-02 09:00 to 2026-11-09 09:00 in Rome (08:00 UTC): alice's; shift 1 is bob's.
    private let shiftStart = Date(timeIntervalSince1970: 1_793_606_400)
    private let handoffAt = Date(timeIntervalSince1970: 1_794_211_200)

    private func fixture(_ directory: TemporaryDirectory) async throws -> HandoffFixture {
        try await HandoffFixture(
            path: directory.path("console.sqlite"), members: [alice, bob, carol], shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0),
            zone: try #require(TimeZone(identifier: "Europe/Rome")), startDate: LocalDate(year: 2026, month: 11, day: 2))
    }

    private func service(
        _ store: ModerationStore, at time: Date, alerts: @escaping @Sendable (DateInterval) throws -> [HandoffDigest.Alert] = { _ in [] },
        nudges: Counter = Counter()
    ) -> HandoffService {
        HandoffService(
            store: store, builder: HandoffDigestBuilder(store: store, alerts: alerts), bundleID: "org.bookcorners.app",
            nudge: { nudges.increment() }, now: { time }, logger: ConsoleFixture.quietLogger)
    }

    @Test("the digest lists the queue watcher's episodes of the shift with who acknowledged them, and none from after it")
    func alertsFromTheWatcher() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: an episode alice acknowledged and that closed during her shift, and one opened after the hand-off
        let store = try await fixture(directory).store
        let alice = self.alice
        let message: ModerationStore.QueueAlertMessage = { recipient, _, key in
            OutboxMessage(
                id: UUID().uuidString, actionId: nil, recipientUserId: recipient.id, eventType: .queueOverdue, payload: "{}", headers: "{}",
                createdAt: Date(), dedupeKey: key)
        }
        let opened = shiftStart.addingTimeInterval(86_400)
        let episode = try #require(
            try await store.openQueueAlert(
                .reports, overdueCount: 2, oldestCreatedAt: shiftStart.addingTimeInterval(-3 * 86_400), targetMinutes: 24 * 60, telling: alice,
                now: opened, message: message))
        _ = try await store.acknowledgeQueueAlert(
            id: episode.id, by: alice, audit: HandoffFixture.entry("alert.acknowledge", by: alice, at: opened.addingTimeInterval(600)),
            now: opened.addingTimeInterval(600))
        #expect(try await store.closeQueueAlert(id: episode.id, now: opened.addingTimeInterval(86_400)))
        _ = try await store.openQueueAlert(
            .photos, overdueCount: 1, oldestCreatedAt: shiftStart, targetMinutes: 72 * 60, telling: bob, now: handoffAt.addingTimeInterval(60),
            message: message)
        // act: the service as the console builds it, with the watcher's episodes from the store
        _ = await HandoffService(
            store: store, builder: HandoffDigestBuilder(store: store), bundleID: "org.bookcorners.app", nudge: {},
            now: { [handoffAt] in handoffAt.addingTimeInterval(120) }, logger: ConsoleFixture.quietLogger
        ).tick()
        // check
        let digest = try #require(try await store.shiftHandoff(at: handoffAt)).digest
        #expect(
            digest.alerts == [
                HandoffDigest.Alert(
                    queue: .reports, openedAt: opened, acknowledgedBy: "alice", acknowledgedAt: opened.addingTimeInterval(600), escalated: false,
                    closedAt: opened.addingTimeInterval(86_400))
            ])
    }

    @Test("a shift with known decisions: counts by kind and person, waiting and oldest from the mirror, the note, and one message to bob")
    func digestOfKnownShift() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: 5 applied decisions inside the shift, one just before and one at the hand-off (the next shift's),
        // a conflict and a failure (no decision) inside it
        let fixture = try await fixture(directory)
        try await fixture.decide("library.approve", by: alice, at: shiftStart.addingTimeInterval(3_600))
        try await fixture.decide("library.approve", by: alice, at: shiftStart.addingTimeInterval(2 * 86_400))
        try await fixture.decide("library.reject", by: carol, at: shiftStart.addingTimeInterval(3 * 86_400))
        try await fixture.decide("report.resolve", by: alice, at: shiftStart.addingTimeInterval(4 * 86_400))
        try await fixture.decide("photo.approve", by: carol, at: handoffAt.addingTimeInterval(-1))
        try await fixture.decide("library.approve", by: alice, at: shiftStart.addingTimeInterval(-1))
        try await fixture.decide("library.approve", by: bob, at: handoffAt)
        try await fixture.decide("library.reject", by: alice, at: shiftStart.addingTimeInterval(5 * 86_400), outcome: .conflict)
        try await fixture.decide("report.dismiss", by: alice, at: shiftStart.addingTimeInterval(5 * 86_400), outcome: .failed)
        // The mirror: four pending libraries (two past the 48 h target), two open reports (one past 24 h), no photos.
        let store = fixture.store
        try await store.upsertMirror(
            libraries: [
                HandoffFixture.library(1, name: "Oldest <Corner>", createdAt: handoffAt.addingTimeInterval(-5 * 86_400)),
                HandoffFixture.library(2, name: "Second", createdAt: handoffAt.addingTimeInterval(-3 * 86_400)),
                HandoffFixture.library(3, name: "Third", createdAt: handoffAt.addingTimeInterval(-86_400)),
                HandoffFixture.library(4, name: "Newest", createdAt: handoffAt.addingTimeInterval(-3_600)),
            ], at: handoffAt)
        try await store.upsertMirror(
            reports: [
                HandoffFixture.report(1, libraryName: "Reported One", createdAt: handoffAt.addingTimeInterval(-30 * 3_600)),
                HandoffFixture.report(2, libraryName: "Reported Two", createdAt: handoffAt.addingTimeInterval(-2 * 3_600)),
            ], at: handoffAt)
        try await store.saveMirror(summary: HandoffFixture.summary(at: handoffAt))
        try await store.savePendingHandoffNote(
            author: alice, text: "Report 12 needs a call to the owner.",
            audit: HandoffFixture.entry("handoff.note", by: alice, at: handoffAt), now: handoffAt.addingTimeInterval(-600))
        let nudges = Counter()
        // act: 30 s after the hand-off
        let built = await service(store, at: handoffAt.addingTimeInterval(30), nudges: nudges).tick()
        // check
        let handoff = try #require(try await store.shiftHandoff(at: handoffAt))
        #expect(built == handoff)
        #expect(handoff.outgoing == alice && handoff.incoming == bob)
        #expect(handoff.startsAt == shiftStart && handoff.endsAt == handoffAt)
        let digest = handoff.digest
        #expect(digest.decisionCount == 5)
        #expect(
            digest.decisionsByKind == [
                .init(key: "library.approve", count: 2), .init(key: "library.reject", count: 1), .init(key: "photo.approve", count: 1),
                .init(key: "report.resolve", count: 1),
            ])
        #expect(digest.decisionsByPerson == [.init(key: "alice", count: 3), .init(key: "carol", count: 2)])
        let queues = try #require(digest.queues)
        #expect(queues.map(\.queue) == [.libraries, .reports, .photos])
        #expect(queues.map(\.waiting) == [4, 2, 0])
        #expect(queues.map(\.overdue) == [2, 1, 0])
        #expect(queues[0].oldest.map(\.label) == ["Oldest <Corner>", "Second", "Third"])
        #expect(queues[0].oldest.map(\.overdue) == [true, true, false])
        #expect(queues[1].oldest.map(\.label) == ["Reported One", "Reported Two"])
        #expect(digest.waitingCount == 6 && digest.overdueCount == 3)
        #expect(digest.note?.text == "Report 12 needs a call to the owner." && digest.note?.author == "alice")
        #expect(digest.alerts.isEmpty && digest.timeZone == "Europe/Rome")
        // One message, to bob, keyed by the hand-off; the dispatcher was nudged.
        let messages = try await store.outboxMessages(status: nil, eventType: .shiftHandoff, limit: 10)
        let message = try #require(messages.first)
        #expect(messages.count == 1 && message.recipientUserId == bob.id && message.dedupeKey == "handoff-\(handoff.id)" && message.actionId == nil)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
        let alert = try #require((payload["aps"] as? [String: Any])?["alert"] as? [String: String])
        #expect(alert["title"] == "Your on-call shift has begun")
        #expect(alert["body"] == "alice handed over: 5 decisions, 6 waiting (3 overdue). Note: Report 12 needs a call to the owner.")
        let data = try #require(payload["data"] as? [String: Any])
        #expect(data["type"] as? String == "shift.handoff" && data["handoff"] as? Int == Int(handoff.id))
        #expect(nudges.value == 1)
    }

    @Test("two services on one database file build and message a hand-off once")
    func onceWithTwoServices() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: a second process's store on the same file
        let fixture = try await fixture(directory)
        try await fixture.decide("library.approve", by: alice, at: shiftStart.addingTimeInterval(3_600))
        let other = try ModerationStore(path: directory.path("console.sqlite"))
        let time = handoffAt.addingTimeInterval(5)
        let first = service(fixture.store, at: time)
        let second = service(other, at: time)
        // act: both at once, then both again
        async let one = first.tick()
        async let two = second.tick()
        let results = await [one, two]
        let again = [await first.tick(), await second.tick()]
        // check
        #expect(results.compactMap { $0?.endsAt } == [handoffAt])
        #expect(again == [nil, nil])
        #expect(try await fixture.store.shiftHandoffs(limit: 10).map(\.endsAt) == [handoffAt])
        #expect(try await fixture.store.outboxMessages(status: nil, eventType: .shiftHandoff, limit: 10).count == 1)
    }

    @Test("a hand-off more than a day old is not built (no backfill); within the day it is")
    func noBackfill() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup
        let fixture = try await fixture(directory)
        // act
        let late = await service(fixture.store, at: handoffAt.addingTimeInterval(86_400 + 60)).tick()
        let beforeStart = await service(fixture.store, at: shiftStart.addingTimeInterval(60)).tick()
        let inTime = await service(fixture.store, at: handoffAt.addingTimeInterval(86_400 - 60)).tick()
        // check
        #expect(late == nil && beforeStart == nil)
        #expect(inTime?.endsAt == handoffAt && inTime?.outgoing == alice && inTime?.incoming == bob)
        #expect(try await fixture.store.shiftHandoffs(limit: 10).count == 1)
    }

    @Test("the alert episodes of the shift, as the watcher supplies them, are in the digest")
    func alertsJoinTheDigest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup
        let fixture = try await fixture(directory)
        let episode = HandoffDigest.Alert(
            queue: .reports, openedAt: shiftStart.addingTimeInterval(86_400), acknowledgedBy: "alice",
            acknowledgedAt: shiftStart.addingTimeInterval(86_400 + 300), escalated: false, closedAt: nil)
        let asked = Recorder<DateInterval>()
        // act
        _ = await service(
            fixture.store, at: handoffAt.addingTimeInterval(1),
            alerts: { interval in
                asked.record(interval)
                return [episode]
            }
        ).tick()
        // check
        #expect(asked.values == [DateInterval(start: shiftStart, end: handoffAt)])
        #expect(try await fixture.store.shiftHandoff(at: handoffAt)?.digest.alerts == [episode])
    }

    @Test("an override starts and ends a hand-off of its own: alice → carol as the cover starts, carol → alice as it ends, each with its note")
    func overridesHandOff() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: carol covers alice's shift for a day; alice and carol each leave a note
        let fixture = try await fixture(directory)
        let coverStart = shiftStart.addingTimeInterval(2 * 86_400), coverEnd = shiftStart.addingTimeInterval(3 * 86_400)
        try await fixture.store.addOverride(
            staff: carol, startsAt: coverStart, endsAt: coverEnd, note: "", audit: HandoffFixture.entry("override.add", by: alice, at: shiftStart),
            now: shiftStart)
        try await fixture.store.savePendingHandoffNote(
            author: alice, text: "For carol", audit: HandoffFixture.entry("handoff.note", by: alice, at: coverStart), now: coverStart.addingTimeInterval(-60))
        // act
        let into = await service(fixture.store, at: coverStart.addingTimeInterval(10)).tick()
        try await fixture.store.savePendingHandoffNote(
            author: carol, text: "Back to alice", audit: HandoffFixture.entry("handoff.note", by: carol, at: coverEnd), now: coverEnd.addingTimeInterval(-60))
        let outOf = await service(fixture.store, at: coverEnd.addingTimeInterval(10)).tick()
        let rotationTurn = await service(fixture.store, at: handoffAt.addingTimeInterval(10)).tick()
        // check
        #expect(into?.outgoing == alice && into?.incoming == carol && into?.startsAt == shiftStart && into?.endsAt == coverStart)
        #expect(into?.digest.note?.text == "For carol")
        #expect(outOf?.outgoing == carol && outOf?.incoming == alice && outOf?.startsAt == coverStart && outOf?.endsAt == coverEnd)
        #expect(outOf?.digest.note?.text == "Back to alice")
        #expect(rotationTurn?.outgoing == alice && rotationTurn?.incoming == bob && rotationTurn?.startsAt == coverEnd)
        #expect(rotationTurn?.digest.note == nil)
        let messages = try await fixture.store.outboxMessages(status: nil, eventType: .shiftHandoff, limit: 10)
        #expect(Set(messages.map(\.recipientUserId)) == [carol.id, alice.id, bob.id] && messages.count == 3)
    }

    @Test("after a rotation change a note written before it goes with the next hand-off, and the old hand-off keeps its own")
    func noteSurvivesRotationChange() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: alice → bob handed over (shift 0 of the old rotation), then bob writes a note and
        // the rotation is changed to start yesterday, so the new rotation's "shift 0" is bob's shift under way
        let fixture = try await fixture(directory)
        let first = try #require(await service(fixture.store, at: handoffAt.addingTimeInterval(10)).tick())
        let changedAt = handoffAt.addingTimeInterval(2 * 86_400)
        try await fixture.store.savePendingHandoffNote(
            author: bob, text: "Written before the change", audit: HandoffFixture.entry("handoff.note", by: bob, at: changedAt), now: changedAt)
        let changed = try Rotation(
            members: [bob, carol], shiftDays: 1, handoff: LocalTime(hour: 18, minute: 0), timeZone: fixture.rotation.timeZone,
            startDate: LocalDate(changedAt, in: fixture.rotation.timeZone).adding(days: -1))
        try await fixture.store.saveRotation(changed, audit: HandoffFixture.entry("rotation.save", by: bob, at: changedAt), now: changedAt)
        // act: the new rotation's first hand-off, bob → carol at 18:00
        let schedule = try #require(try await fixture.store.onCallSchedule(since: changedAt, now: changedAt))
        let due = try #require(schedule.nextHandoff(after: changedAt))
        let built = await service(fixture.store, at: due.at.addingTimeInterval(10)).tick()
        // check
        #expect(due.outgoing.member == bob && due.incoming.member == carol)
        #expect(built?.endsAt == due.at && built?.id != first.id)
        #expect(built?.digest.note?.text == "Written before the change")
        #expect(try await fixture.store.shiftHandoff(id: first.id)?.digest.note == nil)
        #expect(try await fixture.store.shiftHandoffs(limit: 10).count == 2)
    }
}
