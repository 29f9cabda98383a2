import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Watches the queues' oldest items and keeps one overdue episode per queue: opens it and
/// tells the person on call when the oldest item passes its target, tells them again every
/// `repeatInterval` while it lasts, hands it to the next person in the rotation when nobody
/// acknowledges within `ackTimeout`, and closes it when the queue is back under target.
/// Every change and its message are one store transaction; `tick()` is what tests call.
actor QueueWatcher: Service {
    private let store: ModerationStore
    private let source: QueueAgeSource
    private let configuration: OnCallWatcherConfiguration
    private let bundleID: String
    /// Wakes the outbox dispatcher after messages were stored.
    private let nudge: @Sendable () -> Void
    private let now: @Sendable () -> Date
    private let logger: Logger

    init(
        store: ModerationStore, source: QueueAgeSource, configuration: OnCallWatcherConfiguration, bundleID: String,
        nudge: @escaping @Sendable () -> Void, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.store = store
        self.source = source
        self.configuration = configuration
        self.bundleID = bundleID
        self.nudge = nudge
        self.now = now
        self.logger = logger
    }

    func run() async throws {
        await repeatUntilShutdown(every: .milliseconds(Int(configuration.interval * 1000))) { await self.tick() }
    }

    /// One look at every queue.
    func tick() async {
        do {
            let at = now()
            let targets = try await store.queueTargets()
            let schedule = try await store.onCallSchedule(since: at)
            let active = await Dictionary(try store.activeQueueAlerts().map { ($0.queue, $0) }, uniquingKeysWith: { first, _ in first })
            var stored = false
            for queue in ModerationQueue.allCases {
                guard let sighting = await source.sighting(queue, now: at) else { continue }
                let seen = Seen(queue: queue, sighting: sighting, target: targets.target(queue), targetMinutes: targets.minutes(queue), now: at)
                stored = try await watch(seen, episode: active[queue], schedule: schedule) || stored
            }
            if stored { nudge() }
        } catch is CancellationError {
            return  // shutting down: the next start looks again
        } catch {
            // Our own database: nothing to retry against the backend; the next look tries again.
            logger.error("queue watcher could not store what it saw", metadata: ["error": "\(error)"])
        }
    }

    /// What one look found of one queue.
    private struct Seen {
        let queue: ModerationQueue
        let overdue: Int
        let exact: Bool
        let oldest: Date?
        let target: TimeInterval
        let targetMinutes: Int
        let now: Date

        init(queue: ModerationQueue, sighting: QueueSighting, target: TimeInterval, targetMinutes: Int, now: Date) {
            self.queue = queue
            let overdue = sighting.overdue(target: target, now: now)
            self.overdue = overdue.count
            exact = overdue.exact
            oldest = sighting.oldest
            self.target = target
            self.targetMinutes = targetMinutes
            self.now = now
        }

        var oldestAge: TimeInterval { oldest.map { now.timeIntervalSince($0) } ?? 0 }
    }

    /// Moves one queue's episode on; `true` when a message was stored.
    private func watch(_ seen: Seen, episode: QueueAlert?, schedule: OnCallSchedule?) async throws -> Bool {
        guard seen.overdue > 0, let oldest = seen.oldest else {
            if let episode, try await store.closeQueueAlert(id: episode.id, now: seen.now) {
                logger.info("queue back under target", metadata: ["queue": "\(seen.queue.rawValue)", "alert": "\(episode.id)"])
            }
            return false
        }
        guard let episode else {
            let onCall = schedule?.member(at: seen.now)
            let opened = try await store.openQueueAlert(
                seen.queue, overdueCount: seen.overdue, oldestCreatedAt: oldest, targetMinutes: seen.targetMinutes, telling: onCall,
                now: seen.now, message: notice(seen))
            if let opened {
                logger.notice(
                    "queue overdue", metadata: ["queue": "\(seen.queue.rawValue)", "alert": "\(opened.id)", "told": "\(onCall?.username ?? "nobody")"])
            }
            return opened != nil && onCall != nil
        }
        guard try await store.noteQueueAlert(id: episode.id, overdueCount: seen.overdue, oldestCreatedAt: oldest) else { return false }
        if let escalated = try await escalate(episode, seen, schedule: schedule) { return escalated }
        return try await remind(episode, seen, schedule: schedule)
    }

    /// The holder did not acknowledge in time: the next person in the rotation is told.
    /// `nil` when escalation is not due or nobody is left to escalate to.
    private func escalate(_ episode: QueueAlert, _ seen: Seen, schedule: OnCallSchedule?) async throws -> Bool? {
        guard episode.state.awaitsAcknowledgement, let holderID = episode.notifiedStaffId, let heldSince = episode.heldSince,
            seen.now.timeIntervalSince(heldSince) >= configuration.ackTimeout, let rotation = schedule?.rotation,
            let next = rotation.escalation(after: holderID, firstTold: episode.firstNotifiedStaffId ?? holderID, at: seen.now)
        else { return nil }
        let holder = try await store.staffMember(id: holderID)?.username ?? "the person on call"
        let push = QueueAlertNotification.escalation(
            seen.queue, overdue: seen.overdue, exact: seen.exact, oldestAge: seen.oldestAge, target: seen.target, unacknowledgedBy: holder)
        let sent = try await store.escalateQueueAlert(episode, telling: next, now: seen.now) { recipient, _, _ in
            QueueAlertNotification.message(push, to: recipient, queue: seen.queue, bundleID: self.bundleID, now: seen.now)
        }
        if sent {
            logger.notice("queue alert escalated", metadata: ["queue": "\(seen.queue.rawValue)", "alert": "\(episode.id)", "to": "\(next.username)"])
        }
        return sent
    }

    /// Tells the holder again after `repeatInterval`, or tells the person on call now when
    /// nobody could be told before.
    private func remind(_ episode: QueueAlert, _ seen: Seen, schedule: OnCallSchedule?) async throws -> Bool {
        let recipient: StaffMember?
        if let holderID = episode.notifiedStaffId {
            guard let last = episode.lastNotifiedAt, seen.now.timeIntervalSince(last) >= configuration.repeatInterval else { return false }
            if episode.state == .acknowledged, let id = episode.acknowledgedById, let username = episode.acknowledgedByUsername {
                recipient = StaffMember(id: id, username: username)
            } else {
                recipient = try await store.staffMember(id: holderID)
            }
        } else {
            recipient = schedule?.member(at: seen.now)
        }
        guard let recipient else { return false }
        return try await store.remindQueueAlert(episode, telling: recipient, now: seen.now, message: notice(seen))
    }

    private func notice(_ seen: Seen) -> ModerationStore.QueueAlertMessage {
        let push = QueueAlertNotification.notice(seen.queue, overdue: seen.overdue, exact: seen.exact, oldestAge: seen.oldestAge, target: seen.target)
        let bundleID = self.bundleID
        return { recipient, _, _ in
            QueueAlertNotification.message(push, to: recipient, queue: seen.queue, bundleID: bundleID, now: seen.now)
        }
    }
}
