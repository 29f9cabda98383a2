import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Builds each hand-off's digest once it has happened and tells the incoming person with a
/// `shift.handoff` message. A hand-off is any change of the person on call: the rotation's
/// turn or an override's start or end (`OnCallSchedule.latestHandoff`). The stored row decides: two processes on one database may both
/// build a digest, but only the one whose row lands stores the message. A hand-off more than
/// a day old is left alone, so a console installed today does not fill in history.
actor HandoffService: Service {
    /// How late a hand-off may still be built.
    static let backfillLimit: TimeInterval = 86_400

    private let store: ModerationStore
    private let builder: HandoffDigestBuilder
    private let bundleID: String
    private let nudge: @Sendable () -> Void
    private let interval: Duration
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(
        store: ModerationStore, builder: HandoffDigestBuilder, bundleID: String, nudge: @escaping @Sendable () -> Void,
        interval: Duration = .seconds(30), now: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.store = store
        self.builder = builder
        self.bundleID = bundleID
        self.nudge = nudge
        self.interval = interval
        self.now = now
        self.logger = logger
    }

    func run() async throws {
        await repeatUntilShutdown(every: interval) { await self.tick() }
    }

    /// Builds the latest hand-off if it is due; answers the one it stored, if this call stored one.
    @discardableResult
    func tick() async -> ShiftHandoff? {
        do {
            return try await buildDueHandoff()
        } catch {
            // Tried again on the next tick; nothing was stored.
            logger.error("hand-off digest not built", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func buildDueHandoff() async throws -> ShiftHandoff? {
        let at = now()
        // The schedule from far enough back that the outgoing turn's overrides are in it.
        let since = at.addingTimeInterval(-Self.backfillLimit - Double(Rotation.maxShiftDays + 1) * 86_400)
        guard let schedule = try await store.onCallSchedule(since: since, now: at),
            let due = schedule.latestHandoff(atOrBefore: at, lookback: Self.backfillLimit)
        else { return nil }
        let latest = try await store.latestShiftHandoff()
        // A rotation change that moved who is on call built its hand-off then (`changeRotation`):
        // the new schedule's own hand-offs before it never happened, and the next one's shift
        // began at it.
        if let latest, latest.endsAt >= due.at { return nil }
        let startsAt = max(due.outgoing.startsAt, latest?.endsAt ?? due.outgoing.startsAt)
        let digest = try await builder.digest(startsAt: startsAt, endsAt: due.at, timeZone: schedule.rotation.timeZone, asOf: at)
        let planned = ShiftHandoff.Planned(
            startsAt: startsAt, endsAt: due.at, outgoing: due.outgoing.member, incoming: due.incoming.member, digest: digest,
            builtAt: at)
        guard let stored = try await store.recordHandoff(planned, message: { final in self.message(for: final, now: at) }) else { return nil }
        logger.info("hand-off digest built", metadata: ["handoff": "\(stored.id)", "incoming": "\(stored.incoming.username)"])
        nudge()
        return stored
    }

    /// Saves `rotation` in place of `before`; when the change moves who is on call at `at` from
    /// `outgoing` to `incoming`, the hand-off between them is built now, in the same transaction,
    /// as a scheduled one would be (digest, the outgoing person's pending note, a push to the
    /// incoming person): the note written for the person next reaches them, not whoever comes after.
    func changeRotation(
        _ rotation: Rotation, replacing before: Rotation?, handingOver: (outgoing: OnCallSchedule.Turn, incoming: StaffMember)?, audit: AuditEntry,
        at: Date
    ) async throws -> ShiftHandoff? {
        var planned: ShiftHandoff.Planned?
        if let handingOver {
            let outgoing = handingOver.outgoing
            let digest = try await builder.digest(startsAt: outgoing.startsAt, endsAt: at, timeZone: rotation.timeZone, asOf: at)
            planned = ShiftHandoff.Planned(
                startsAt: outgoing.startsAt, endsAt: at, outgoing: outgoing.member, incoming: handingOver.incoming, digest: digest, builtAt: at)
        }
        let stored = try await store.changeRotation(
            rotation, replacing: before, audit: audit, now: at, handoff: planned, message: { final in self.message(for: final, now: at) })
        if let stored {
            logger.info("hand-off built by a rotation change", metadata: ["handoff": "\(stored.id)", "incoming": "\(stored.incoming.username)"])
            nudge()
        }
        return stored
    }

    private nonisolated func message(for handoff: ShiftHandoff, now: Date) -> OutboxMessage {
        let push = HandoffNotification.push(for: handoff)
        let id = UUID().uuidString
        let headers = push.headers(messageID: id, bundleID: bundleID, collapseID: "handoff-\(handoff.id)", now: now)
        let headerJSON = String(decoding: (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
        return OutboxMessage(
            id: id, actionId: nil, recipientUserId: handoff.incoming.id, eventType: push.type, payload: push.payloadJSON(), headers: headerJSON,
            createdAt: now, expiresAt: push.expiration(now: now), dedupeKey: "handoff-\(handoff.id)")
    }
}
