import Foundation
import GRDB

/// Overdue episodes of the queues. Each message of an episode is stored in the same
/// transaction as the episode change that sends it, keyed (`alert-<id>-notice-<n>`,
/// `alert-<id>-escalation-<level>`), so it is never doubled or lost; every update names the
/// states it expects and checks the change count.
extension ModerationStore {
    /// Builds an episode's message to a recipient once the episode's id and the message's key are known.
    public typealias QueueAlertMessage = @Sendable (_ recipient: StaffMember, _ alertID: Int64, _ dedupeKey: String) -> OutboxMessage

    // MARK: Reading

    /// Episodes not closed, oldest first.
    public func activeQueueAlerts() async throws -> [QueueAlert] {
        try await writer.read { db in
            try QueueAlert.fetchAll(
                db, sql: "SELECT * FROM queueAlert WHERE state IN (\(Self.placeholders(QueueAlert.activeStates))) ORDER BY openedAt, id",
                arguments: StatementArguments(QueueAlert.activeStates.map(\.rawValue)))
        }
    }

    public func queueAlert(id: Int64) async throws -> QueueAlert? {
        try await writer.read { db in try QueueAlert.fetchOne(db, sql: "SELECT * FROM queueAlert WHERE id = ?", arguments: [id]) }
    }

    /// The episodes under way at any time in `interval` (a shift), oldest first: what its hand-off digest reports.
    public func queueAlerts(overlapping interval: DateInterval) async throws -> [QueueAlert] {
        try await writer.read { db in
            try QueueAlert.fetchAll(
                db, sql: "SELECT * FROM queueAlert WHERE openedAt < ? AND (closedAt IS NULL OR closedAt > ?) ORDER BY openedAt, id",
                arguments: [interval.end, interval.start])
        }
    }

    /// The newest `limit` episodes, newest first.
    public func recentQueueAlerts(limit: Int) async throws -> [QueueAlert] {
        try await writer.read { db in
            try QueueAlert.fetchAll(db, sql: "SELECT * FROM queueAlert ORDER BY openedAt DESC, id DESC LIMIT ?", arguments: [limit])
        }
    }

    /// The messages of these episodes, in order, by episode.
    public func queueAlertNotices(alertIDs: [Int64]) async throws -> [Int64: [QueueAlertNotice]] {
        guard !alertIDs.isEmpty else { return [:] }
        return try await writer.read { db in
            let notices = try QueueAlertNotice.fetchAll(
                db, sql: "SELECT * FROM queueAlertNotice WHERE alertId IN (\(Self.placeholders(alertIDs))) ORDER BY id",
                arguments: StatementArguments(alertIDs))
            return Dictionary(grouping: notices, by: \.alertId)
        }
    }

    // MARK: The watcher's changes

    /// Opens an episode for `queue` and tells `recipient` (or notes that nobody could be told).
    /// `nil` when the queue already has an episode not closed (another process may have opened it).
    public func openQueueAlert(
        _ queue: ModerationQueue, overdueCount: Int, oldestCreatedAt: Date, targetMinutes: Int, telling recipient: StaffMember?,
        now: Date, message: QueueAlertMessage
    ) async throws -> QueueAlert? {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO queueAlert (queue, state, openedAt, overdueCount, oldestCreatedAt, targetMinutes)
                    VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                    """,
                arguments: [queue.rawValue, QueueAlert.State.open.rawValue, now, overdueCount, oldestCreatedAt, targetMinutes])
            guard db.changesCount == 1 else { return nil }
            let id = db.lastInsertedRowID
            if let recipient {
                try Self.tell(alertID: id, kind: .notice, recipient: recipient, now: now, message: message, db)
            } else {
                try Self.noteNobodyTold(alertID: id, now: now, db)
            }
            return try QueueAlert.fetchOne(db, sql: "SELECT * FROM queueAlert WHERE id = ?", arguments: [id])
        }
    }

    /// Notes what the watcher saw of a queue whose episode goes on; `false` when it closed meanwhile.
    @discardableResult
    public func noteQueueAlert(id: Int64, overdueCount: Int, oldestCreatedAt: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE queueAlert SET overdueCount = ?, oldestCreatedAt = ? WHERE id = ? AND state IN (\(Self.placeholders(QueueAlert.activeStates)))",
                arguments: StatementArguments([overdueCount, oldestCreatedAt, id] as [any DatabaseValueConvertible])
                    + StatementArguments(QueueAlert.activeStates.map(\.rawValue)))
            return db.changesCount == 1
        }
    }

    /// Tells `recipient` again (a repeat, or the first word when nobody could be told before).
    /// `false` when the episode moved on since `alert` was read (another process told them).
    public func remindQueueAlert(_ alert: QueueAlert, telling recipient: StaffMember, now: Date, message: QueueAlertMessage) async throws -> Bool {
        guard alert.state != .closed else { return false }
        return try await writer.write { db in
            // The state and the last message as the caller saw them: anything else means someone else acted.
            try db.execute(
                sql: "UPDATE queueAlert SET lastNotifiedAt = ? WHERE id = ? AND state = ? AND lastNotifiedAt IS ? AND escalationLevel = ?",
                arguments: [now, alert.id, alert.state.rawValue, alert.lastNotifiedAt, alert.escalationLevel])
            guard db.changesCount == 1 else { return false }
            let kind: QueueAlertNotice.Kind = alert.notifiedStaffId == nil ? .notice : .repeat
            try Self.tell(alertID: alert.id, kind: kind, recipient: recipient, now: now, message: message, db)
            return true
        }
    }

    /// Hands an episode nobody acknowledged to `recipient`, the next person in the rotation.
    /// `false` when it was acknowledged, closed or escalated meanwhile.
    public func escalateQueueAlert(_ alert: QueueAlert, telling recipient: StaffMember, now: Date, message: QueueAlertMessage) async throws -> Bool {
        let sources = QueueAlert.State.sources(of: .escalated)
        return try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE queueAlert SET state = ?, escalationLevel = escalationLevel + 1
                    WHERE id = ? AND escalationLevel = ? AND state IN (\(Self.placeholders(sources)))
                    """,
                arguments: StatementArguments([QueueAlert.State.escalated.rawValue, alert.id, alert.escalationLevel] as [any DatabaseValueConvertible])
                    + StatementArguments(sources.map(\.rawValue)))
            guard db.changesCount == 1 else { return false }
            try Self.tell(alertID: alert.id, kind: .escalation, recipient: recipient, now: now, message: message, db)
            return true
        }
    }

    /// The queue is back under target: the episode ends. `false` when it was closed already.
    @discardableResult
    public func closeQueueAlert(id: Int64, now: Date) async throws -> Bool {
        let sources = QueueAlert.State.sources(of: .closed)
        return try await writer.write { db in
            try db.execute(
                sql: "UPDATE queueAlert SET state = ?, closedAt = ? WHERE id = ? AND state IN (\(Self.placeholders(sources)))",
                arguments: StatementArguments([QueueAlert.State.closed.rawValue, now, id] as [any DatabaseValueConvertible])
                    + StatementArguments(sources.map(\.rawValue)))
            return db.changesCount == 1
        }
    }

    // MARK: Staff

    /// `staff` says they are on it: escalation stops. Written with its audit entry; an episode
    /// already acknowledged or closed is left as it is and said so.
    public func acknowledgeQueueAlert(id: Int64, by staff: StaffMember, audit: AuditEntry, now: Date) async throws -> QueueAlertAcknowledgement {
        let sources = QueueAlert.State.sources(of: .acknowledged)
        return try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE queueAlert SET state = ?, acknowledgedById = ?, acknowledgedByUsername = ?, acknowledgedAt = ?
                    WHERE id = ? AND state IN (\(Self.placeholders(sources)))
                    """,
                arguments: StatementArguments([QueueAlert.State.acknowledged.rawValue, staff.id, staff.username, now, id] as [any DatabaseValueConvertible])
                    + StatementArguments(sources.map(\.rawValue)))
            let changed = db.changesCount == 1
            guard let alert = try QueueAlert.fetchOne(db, sql: "SELECT * FROM queueAlert WHERE id = ?", arguments: [id]) else { return .notFound }
            guard changed else { return alert.state == .closed ? .alreadyClosed(alert) : .alreadyAcknowledged(alert) }
            var entry = audit
            entry.targetId = String(id)
            try self.append(&entry, db)
            return .acknowledged(alert)
        }
    }

    // MARK: Inside a transaction

    /// Stores the message to `recipient` with its key, the notice that records it, and makes
    /// `recipient` the episode's holder.
    private static func tell(
        alertID: Int64, kind: QueueAlertNotice.Kind, recipient: StaffMember, now: Date, message: QueueAlertMessage, _ db: Database
    ) throws {
        let key: String
        switch kind {
        case .notice, .repeat:
            let told =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM queueAlertNotice WHERE alertId = ? AND kind IN (?, ?) AND staffId IS NOT NULL",
                    arguments: [alertID, QueueAlertNotice.Kind.notice.rawValue, QueueAlertNotice.Kind.repeat.rawValue]) ?? 0
            key = "alert-\(alertID)-notice-\(told + 1)"
        case .escalation:
            let level = try Int.fetchOne(db, sql: "SELECT escalationLevel FROM queueAlert WHERE id = ?", arguments: [alertID]) ?? 0
            key = "alert-\(alertID)-escalation-\(level)"
        }
        var outgoing = message(recipient, alertID, key)
        outgoing.dedupeKey = key
        // A key already stored means this message went out in a transaction that did commit: never twice.
        guard try insertOwnOutboxMessage(outgoing, db) else { throw QueueAlertConflict.messageAlreadyStored(key) }
        try db.execute(
            sql: "INSERT INTO queueAlertNotice (alertId, kind, staffId, staffUsername, sentAt, outboxMessageId) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [alertID, kind.rawValue, recipient.id, recipient.username, now, outgoing.id])
        try db.execute(
            sql: """
                UPDATE queueAlert SET lastNotifiedAt = ?,
                    heldSince = CASE WHEN notifiedStaffId IS ? AND heldSince IS NOT NULL THEN heldSince ELSE ? END,
                    notifiedStaffId = ?, firstNotifiedStaffId = COALESCE(firstNotifiedStaffId, ?)
                WHERE id = ?
                """,
            arguments: [now, recipient.id, now, recipient.id, recipient.id, alertID])
    }

    private static func noteNobodyTold(alertID: Int64, now: Date, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO queueAlertNotice (alertId, kind, staffId, staffUsername, sentAt, outboxMessageId) VALUES (?, ?, NULL, NULL, ?, NULL)",
            arguments: [alertID, QueueAlertNotice.Kind.notice.rawValue, now])
    }

    private static func placeholders<T>(_ values: [T]) -> String {
        values.map { _ in "?" }.joined(separator: ", ")
    }
}

/// An episode's message key already in the outbox: the change that would send it again is rolled back.
public enum QueueAlertConflict: Error, Equatable {
    case messageAlreadyStored(String)
}
