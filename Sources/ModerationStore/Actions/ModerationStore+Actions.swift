import Foundation
import GRDB

extension ModerationStore {
    /// Records a decision; the same idempotency key always answers the one action it made.
    public func enqueue(_ action: ModerationAction) throws -> ModerationAction {
        try writer.write { db in
            if let existing = try ModerationAction.filter(ModerationAction.Columns.idempotencyKey == action.idempotencyKey).fetchOne(db) {
                return existing
            }
            var inserted = action
            try inserted.insert(db)
            return inserted
        }
    }

    public func action(id: Int64) throws -> ModerationAction? {
        try writer.read { db in try ModerationAction.fetchOne(db, key: id) }
    }

    /// Actions the runner should work on now: due, and not final or parked. Actions found
    /// `sending` were interrupted (a crash): they are resumed with a re-check.
    public func dueActions(now: Date, limit: Int = 50) throws -> [ModerationAction] {
        try writer.read { db in
            try ModerationAction
                .filter([ModerationAction.State.queued, .waiting, .sending].map(\.rawValue).contains(ModerationAction.Columns.state))
                .filter(ModerationAction.Columns.nextAttemptAt <= now)
                .order(ModerationAction.Columns.nextAttemptAt, Column("id"))
                .limit(limit)
                .fetchAll(db)
        }
    }

    /// The soonest time an unfinished action is due, for the runner's sleep.
    public func nextDueDate() throws -> Date? {
        try writer.read { db in
            try Date.fetchOne(db, sql: "SELECT MIN(nextAttemptAt) FROM action WHERE state IN ('queued', 'waiting', 'sending')")
        }
    }

    /// A staff member's decisions that have not reached a final outcome, oldest first.
    public func unfinishedActions(actorId: Int) throws -> [ModerationAction] {
        try writer.read { db in
            try ModerationAction
                .filter(ModerationAction.Columns.actorId == actorId)
                .filter(![ModerationAction.State.applied, .conflict, .failed].map(\.rawValue).contains(ModerationAction.Columns.state))
                .order(Column("id"))
                .fetchAll(db)
        }
    }

    /// A staff member's decisions that ended in a conflict or failure since `since`: the
    /// outcome may have come after they left the page, so the panel keeps telling them.
    public func recentProblems(actorId: Int, since: Date) throws -> [ModerationAction] {
        try writer.read { db in
            try ModerationAction
                .filter(ModerationAction.Columns.actorId == actorId)
                .filter([ModerationAction.State.conflict, .failed].map(\.rawValue).contains(ModerationAction.Columns.state))
                .filter(Column("updatedAt") >= since)
                .order(Column("id"))
                .fetchAll(db)
        }
    }

    /// Updates an unfinished action's state (sending, waiting, parked) and schedule.
    public func reschedule(_ id: Int64, state: ModerationAction.State, nextAttemptAt: Date, message: String?, backendStatus: Int?, countAttempt: Bool, now: Date) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    UPDATE action SET state = ?, nextAttemptAt = ?, outcomeMessage = ?, backendStatus = ?,
                        attempts = attempts + ?, updatedAt = ? WHERE id = ?
                    """,
                arguments: [state.rawValue, nextAttemptAt, message, backendStatus, countAttempt ? 1 : 0, now, id])
        }
    }

    /// A signed-in staff member's parked actions become due again.
    public func unpark(actorId: Int, now: Date) throws {
        try writer.write { db in
            try db.execute(
                sql: "UPDATE action SET state = 'queued', nextAttemptAt = ?, updatedAt = ? WHERE actorId = ? AND state = 'parked'",
                arguments: [now, now, actorId])
        }
    }

    /// Gives an action its final outcome, with its audit entry and notifications, all in
    /// one transaction: either all three are stored or none is. A second call for the same
    /// action changes nothing (the audit entry is unique per action).
    public func finish(
        _ id: Int64, state: ModerationAction.State, message: String, backendStatus: Int?, audit: AuditEntry,
        notifications: [OutboxMessage], now: Date
    ) throws {
        precondition(state.isFinal, "finish takes a final state")
        try writer.write { db in
            guard let action = try ModerationAction.fetchOne(db, key: id), !action.state.isFinal else { return }
            try db.execute(
                sql: "UPDATE action SET state = ?, outcomeMessage = ?, backendStatus = ?, updatedAt = ? WHERE id = ?",
                arguments: [state.rawValue, message, backendStatus, now, id])
            var entry = audit
            entry.actionId = id
            try Self.append(&entry, db)
            for message in notifications { try message.insert(db) }
        }
    }
}
