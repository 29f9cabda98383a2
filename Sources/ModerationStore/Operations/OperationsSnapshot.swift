import Foundation
import GRDB

/// What the console's database says about its own health at one instant: the numbers a
/// metrics scrape reports, read in one transaction so they agree with each other.
public struct OperationsSnapshot: Sendable, Equatable {
    /// Decisions per state; every state is present, zero when none.
    public var actions: [ModerationAction.State: Int]
    /// When the oldest decision not yet applied, in conflict or failed was recorded; nil when none.
    public var oldestUnfinishedActionAt: Date?
    /// Outbox messages per state; every state is present, zero when none.
    public var outbox: [OutboxMessage.State: Int]
    /// Audit entries ever appended to this database (pruning does not lower it).
    public var auditAppends: Int64
    /// Sessions not expired.
    public var activeSessions: Int
}

extension ModerationStore {
    /// Counts for `/metrics`, in one read.
    public func operationsSnapshot(now: Date = Date()) async throws -> OperationsSnapshot {
        try await writer.read { db in
            var actions = Dictionary(uniqueKeysWithValues: ModerationAction.State.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS count FROM action GROUP BY state") {
                if let state = ModerationAction.State(rawValue: row["state"]) { actions[state] = row["count"] }
            }
            let unfinished = ModerationAction.State.allCases.filter { !$0.isFinal }.map(\.rawValue)
            let oldest = try Date.fetchOne(
                db, ModerationAction.filter(unfinished.contains(Column("state"))).select(min(Column("createdAt"))))
            var outbox = Dictionary(uniqueKeysWithValues: OutboxMessage.State.allCases.map { ($0, 0) })
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS count FROM outboxMessage GROUP BY status") {
                if let state = OutboxMessage.State(rawValue: row["status"]) { outbox[state] = row["count"] }
            }
            let appends =
                try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'auditEntry'), 0),
                                   COALESCE((SELECT MAX(id) FROM auditEntry), 0))
                        """) ?? 0
            let sessions = try StaffSession.filter(StaffSession.Columns.expiresAt > now).fetchCount(db)
            return OperationsSnapshot(
                actions: actions, oldestUnfinishedActionAt: oldest, outbox: outbox, auditAppends: appends, activeSessions: sessions)
        }
    }

    /// Whether the database takes writes now: takes SQLite's write lock and lets it go,
    /// committing nothing (so the page copies, which follow every commit, stay valid).
    /// Async: waiting for the lock (up to the busy timeout) holds no thread of the caller's pool.
    public func checkWritable() async throws {
        try await writer.writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "ROLLBACK")
        }
    }
}
