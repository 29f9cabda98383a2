import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Builds each hand-off's digest once it has happened and tells the incoming person with a
/// `shift.handoff` message. The stored row decides: two processes on one database may both
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

    /// Builds the latest hand-off if it is due; answers the shift it stored, if this call stored one.
    @discardableResult
    func tick() async -> Int? {
        do {
            return try await buildDueHandoff()
        } catch {
            // Tried again on the next tick; nothing was stored.
            logger.error("hand-off digest not built", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private func buildDueHandoff() async throws -> Int? {
        let at = now()
        guard let rotation = try await store.rotation(), let current = rotation.shiftIndex(at: at), current >= 1 else { return nil }
        let shift = current - 1
        let schedule = OnCallSchedule(rotation: rotation, overrides: [])
        let (startsAt, endsAt) = schedule.shift(shift)
        guard at.timeIntervalSince(endsAt) <= Self.backfillLimit, try await store.shiftHandoff(shift) == nil,
            let withOverrides = try await store.onCallSchedule(since: startsAt),
            let outgoing = withOverrides.member(at: endsAt.addingTimeInterval(-1)), let incoming = withOverrides.member(at: endsAt)
        else { return nil }
        let digest = try await builder.digest(startsAt: startsAt, endsAt: endsAt, timeZone: rotation.timeZone, asOf: at)
        let handoff = ShiftHandoff(
            shiftIndex: shift, startsAt: startsAt, endsAt: endsAt, outgoing: outgoing, incoming: incoming, digest: digest, builtAt: at)
        let stored = try await store.recordHandoff(handoff) { final in self.message(for: final, now: at) }
        guard stored else { return nil }
        logger.info("hand-off digest built", metadata: ["shift": "\(shift)", "incoming": "\(incoming.username)"])
        nudge()
        return shift
    }

    private nonisolated func message(for handoff: ShiftHandoff, now: Date) -> OutboxMessage {
        let push = HandoffNotification.push(for: handoff)
        let id = UUID().uuidString
        let headers = push.headers(messageID: id, bundleID: bundleID, collapseID: "handoff-\(handoff.shiftIndex)", now: now)
        let headerJSON = String(decoding: (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
        return OutboxMessage(
            id: id, actionId: nil, recipientUserId: handoff.incoming.id, eventType: push.type, payload: push.payloadJSON(), headers: headerJSON,
            createdAt: now, expiresAt: push.expiration(now: now), dedupeKey: "handoff-\(handoff.shiftIndex)")
    }
}
