import Foundation
import GRDB

extension ModerationStore {
    public func insert(_ session: StaffSession) async throws {
        try await writer.write { db in try session.insert(db) }
    }

    /// The staff member's most recently active live session, if any.
    public func latestSession(staffId: Int, now: Date) async throws -> StaffSession? {
        try readNow { db in
            try StaffSession
                .filter(StaffSession.Columns.staffId == staffId && StaffSession.Columns.expiresAt > now)
                .order(StaffSession.Columns.lastSeenAt.desc)
                .fetchOne(db)
        }
    }

    /// Live sessions of anyone, most recently active first: whose tokens background reads use.
    public func recentSessions(now: Date, activeSince: Date, limit: Int) async throws -> [StaffSession] {
        try await writer.read { db in
            try StaffSession
                .filter(StaffSession.Columns.expiresAt > now && StaffSession.Columns.lastSeenAt >= activeSince)
                .order(StaffSession.Columns.lastSeenAt.desc)
                .limit(limit)
                .fetchAll(db)
        }
    }

    public func session(id: String) async throws -> StaffSession? {
        try readNow { db in try StaffSession.fetchOne(db, key: id) }
    }

    /// Records activity at `now` (never moving it back) and consumes `shownFlash`, the flash a
    /// page showed: a newer flash set since that page was read stays for the next one.
    public func touchSession(id: String, at now: Date, consumingFlash shownFlash: String?) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE session SET lastSeenAt = MAX(lastSeenAt, ?),
                        flash = CASE WHEN flash = ? THEN NULL ELSE flash END
                    WHERE id = ?
                    """,
                arguments: [now, shownFlash, id])
        }
    }

    public func setFlash(_ message: String, sessionID: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE session SET flash = ? WHERE id = ?", arguments: [message, sessionID])
        }
    }

    public func updateSealedAccessToken(_ sealed: Data, sessionID: String) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE session SET sealedAccessToken = ? WHERE id = ?", arguments: [sealed, sessionID])
        }
    }

    /// Deletes every session of one staff member; answers their ids. With `feedRevocation`, their
    /// calendar feed ends in the same transaction (audited by that entry when they had one), so
    /// a feed never outlives the sessions of someone Book Corners no longer calls staff.
    @discardableResult
    public func deleteSessions(
        staffId: Int, revokingCalendarFeed feedRevocation: AuditEntry? = nil, because reason: String? = nil, now: Date = Date()
    ) async throws -> [String] {
        try await writer.write { db in
            let theirs = StaffSession.filter(StaffSession.Columns.staffId == staffId)
            let ids = try String.fetchAll(db, theirs.select(StaffSession.Columns.id))
            try theirs.deleteAll(db)
            if let reason {
                for id in ids {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO endedSession (id, staffId, reason, endedAt) VALUES (?, ?, ?, ?)",
                        arguments: [id, staffId, reason, now])
                }
            }
            if let feedRevocation { _ = try revokeCalendarFeed(staffId: staffId, audit: feedRevocation, db) }
            return ids
        }
    }

    public func deleteSession(id: String) async throws {
        _ = try await writer.write { db in try StaffSession.deleteOne(db, key: id) }
    }

    /// Removes sessions idle longer than `idleTimeout` or past their absolute end; answers
    /// their ids, so whoever holds their decrypted tokens can drop them too.
    @discardableResult
    public func deleteExpiredSessions(now: Date, idleTimeout: TimeInterval) async throws -> [String] {
        try await writer.write { db in
            let expired =
                StaffSession
                .filter(StaffSession.Columns.expiresAt <= now || StaffSession.Columns.lastSeenAt <= now.addingTimeInterval(-idleTimeout))
            let ids = try String.fetchAll(db, expired.select(StaffSession.Columns.id))
            try expired.deleteAll(db)
            return ids
        }
    }

    /// Why the console ended the session `id` (not time), if it did within the last day.
    public func endedSession(id: String) async throws -> (staffId: Int, reason: String)? {
        try readNow { db in
            try Row.fetchOne(db, sql: "SELECT staffId, reason FROM endedSession WHERE id = ?", arguments: [id]).map { ($0["staffId"], $0["reason"]) }
        }
    }

    /// Forgets why sessions ended before `before`.
    @discardableResult
    public func deleteEndedSessions(before: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM endedSession WHERE endedAt < ?", arguments: [before])
            return db.changesCount
        }
    }
}
