import Foundation
import GRDB

extension ModerationStore {
    /// The reasons' thresholds and suspect words as staff last set them (defaults for the rest).
    public func concernSettings() async throws -> ConcernSettings {
        try readOncePerChange(perChange.concernSettings) { db in try Self.concernSettings(db) }
    }

    static func concernSettings(_ db: Database) throws -> ConcernSettings {
        let rows = try Row.fetchAll(db, sql: "SELECT name, value FROM concernSetting")
        return ConcernSettings(stored: Dictionary(rows.map { ($0["name"] as String, $0["value"] as String) }, uniquingKeysWith: { first, _ in first }))
    }

    /// Stores `settings` with its audit entry, in one transaction; answers `false` (and stores
    /// nothing) when the stored settings are no longer `expected`: someone changed them since
    /// the form was shown, and their change must not be overwritten unseen.
    public func setConcernSettings(_ settings: ConcernSettings, expected: ConcernSettings, audit: AuditEntry, now: Date) async throws -> Bool {
        try await writer.write { db in
            guard try Self.concernSettings(db) == expected else { return false }
            for (name, value) in settings.stored() {
                try db.execute(
                    sql: """
                        INSERT INTO concernSetting (name, value, updatedAt, updatedBy) VALUES (?, ?, ?, ?)
                        ON CONFLICT(name) DO UPDATE SET value = excluded.value, updatedAt = excluded.updatedAt, updatedBy = excluded.updatedBy
                        """, arguments: [name, value, now, audit.actorUsername])
            }
            var entry = audit
            try self.append(&entry, db)
            return true
        }
    }
}
