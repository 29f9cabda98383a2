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
