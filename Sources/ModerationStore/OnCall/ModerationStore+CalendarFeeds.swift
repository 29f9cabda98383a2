import Crypto
import Foundation
import GRDB

/// Private calendar feeds: one secret per staff member, stored as its hash.
extension ModerationStore {
    /// Makes a new secret for `staffId` (the old one stops working at once), with its audit
    /// entry; returns the secret, which is never stored and cannot be shown again.
    public func regenerateCalendarFeed(staffId: Int, audit: AuditEntry, now: Date) async throws -> String {
        var bytes = [UInt8](repeating: 0, count: 24)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        let token = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO calendarFeedToken (staffId, tokenHash, createdAt) VALUES (?, ?, ?)
                    ON CONFLICT(staffId) DO UPDATE SET tokenHash = excluded.tokenHash, createdAt = excluded.createdAt
                    """,
                arguments: [staffId, Self.calendarTokenHash(token), now])
            try db.execute(sql: "DELETE FROM calendarFeedStopped WHERE staffId = ?", arguments: [staffId])
            var entry = audit
            try self.append(&entry, db)
        }
        return token
    }

    /// Ends `staffId`'s feed secret (its address answers a bare 404 from now on), audited in the
    /// same transaction; answers whether there was one (none: nothing is recorded).
    @discardableResult
    public func revokeCalendarFeed(staffId: Int, audit: AuditEntry) async throws -> Bool {
        try await writer.write { db in try revokeCalendarFeed(staffId: staffId, audit: audit, db) }
    }

    func revokeCalendarFeed(staffId: Int, audit: AuditEntry, _ db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM calendarFeedToken WHERE staffId = ?", arguments: [staffId])
        guard db.changesCount > 0 else { return false }
        var entry = audit
        try append(&entry, db)
        return true
    }

    /// Stops the feeds whose owners have no live session and have not signed in since
    /// `idleSince` (nor made their feed since), each audited with `audit(owner)` in the same
    /// transaction and remembered for the on-call page; only `staffId`'s when given.
    @discardableResult
    public func stopIdleCalendarFeeds(
        idleSince: Date, now: Date, staffId: Int? = nil, audit: @escaping @Sendable (StoppedCalendarFeed) -> AuditEntry
    ) async throws -> [StoppedCalendarFeed] {
        try await writer.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT t.staffId, m.username, m.lastSignedInAt FROM calendarFeedToken t JOIN staffMember m ON m.id = t.staffId
                    WHERE COALESCE(m.lastSignedInAt, t.createdAt) < ? AND t.createdAt < ? AND (? IS NULL OR t.staffId = ?)
                    AND NOT EXISTS (SELECT 1 FROM session s WHERE s.staffId = t.staffId AND s.expiresAt > ?)
                    """,
                arguments: [idleSince, idleSince, staffId, staffId, now])
            var stopped: [StoppedCalendarFeed] = []
            for row in rows {
                let feed = StoppedCalendarFeed(staffId: row["staffId"], username: row["username"], lastSignedInAt: row["lastSignedInAt"], stoppedAt: now)
                guard try revokeCalendarFeed(staffId: feed.staffId, audit: audit(feed), db) else { continue }
                try db.execute(
                    sql: "INSERT OR REPLACE INTO calendarFeedStopped (staffId, username, lastSignedInAt, stoppedAt) VALUES (?, ?, ?, ?)",
                    arguments: [feed.staffId, feed.username, feed.lastSignedInAt, now])
                stopped.append(feed)
            }
            return stopped
        }
    }

    /// The feeds stopped for their owners' absence who have not signed in since, by username.
    public func stoppedCalendarFeeds() async throws -> [StoppedCalendarFeed] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT staffId, username, lastSignedInAt, stoppedAt FROM calendarFeedStopped ORDER BY username").map {
                StoppedCalendarFeed(staffId: $0["staffId"], username: $0["username"], lastSignedInAt: $0["lastSignedInAt"], stoppedAt: $0["stoppedAt"])
            }
        }
    }

    /// When `staffId`'s feed secret was made; `nil` when they have none.
    public func calendarFeedCreatedAt(staffId: Int) async throws -> Date? {
        try await writer.read { db in try Date.fetchOne(db, sql: "SELECT createdAt FROM calendarFeedToken WHERE staffId = ?", arguments: [staffId]) }
    }

    /// The staff member whose feed `token` opens; `nil` for any other text.
    public func calendarFeedOwner(token: String) async throws -> StaffMember? {
        guard token.utf8.count <= 64 else { return nil }
        return try await writer.read { db in
            try StaffMember.fetchOne(
                db,
                sql:
                    "SELECT staffMember.id, staffMember.username FROM calendarFeedToken JOIN staffMember ON staffMember.id = calendarFeedToken.staffId WHERE tokenHash = ?",
                arguments: [Self.calendarTokenHash(token)])
        }
    }

    static func calendarTokenHash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

extension AuditEntry {
    /// A calendar feed secret ended: by its owner, or by the console when they stopped being staff.
    public static let calendarFeedRevokeAction = "calendar.revoke"
}

/// A calendar feed the console stopped because its owner had not signed in for a while.
public struct StoppedCalendarFeed: Sendable, Equatable {
    public let staffId: Int
    public let username: String
    /// Their last sign-in the console knows of (`nil`: never, since the feed was made).
    public let lastSignedInAt: Date?
    public let stoppedAt: Date
}
