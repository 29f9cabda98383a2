import Foundation
import GRDB

extension ModerationStore {
    /// Appends an entry that belongs to no action (sign-in, sign-out, …).
    @discardableResult
    public func appendAudit(_ entry: AuditEntry) throws -> AuditEntry {
        try writer.write { db in
            var entry = entry
            try Self.append(&entry, db)
            return entry
        }
    }

    /// Chains and inserts an entry inside the caller's transaction.
    static func append(_ entry: inout AuditEntry, _ db: Database) throws {
        let last = try Row.fetchOne(db, sql: "SELECT id, hash FROM auditEntry ORDER BY id DESC LIMIT 1")
        // The id is part of the hash, so it is chosen before the insert (never reused: AUTOINCREMENT).
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'auditEntry'") ?? 0
        let lastID: Int64 = last?["id"] ?? 0
        entry.id = max(sequence, lastID) + 1
        entry.previousHash = last?["hash"] ?? AuditEntry.genesisHash
        entry.hash = entry.computedHash()
        try entry.insert(db)
    }

    /// The newest entries first.
    public func auditEntries(limit: Int = 100) throws -> [AuditEntry] {
        try writer.read { db in try AuditEntry.order(Column("id").desc).limit(limit).fetchAll(db) }
    }

    public func auditEntryCount() throws -> Int {
        try writer.read { db in try AuditEntry.fetchCount(db) }
    }

    /// Walks the chain from the first entry and answers where it breaks, if it does.
    public func verifyAuditChain() throws -> AuditChainVerdict {
        try writer.read { db in
            var previous = AuditEntry.genesisHash
            var count = 0
            let cursor = try AuditEntry.order(Column("id")).fetchCursor(db)
            while let entry = try cursor.next() {
                let id = entry.id ?? 0
                guard entry.previousHash == previous else {
                    return .broken(entryID: id, reason: "its previous hash does not match the entry before it (an entry was removed or moved)")
                }
                guard entry.computedHash() == entry.hash else {
                    return .broken(entryID: id, reason: "its contents do not match its hash (the entry was changed)")
                }
                previous = entry.hash
                count += 1
            }
            return .intact(entries: count, head: previous)
        }
    }
}
