import Foundation
import GRDB

extension ModerationStore {
    /// Appends an entry that belongs to no action (sign-in, sign-out, export, …).
    @discardableResult
    public func appendAudit(_ entry: AuditEntry) async throws -> AuditEntry {
        try await writer.write { db in
            var entry = entry
            try self.append(&entry, db)
            return entry
        }
    }

    /// Chains and inserts an entry inside the caller's transaction. The hot path of the
    /// log: both statements are prepared once per connection. With an audit key the entry
    /// is keyed, after a switch entry if the chain was not keyed yet; without one, nothing
    /// may be appended to a keyed chain (an unkeyed entry there is a break).
    func append(_ entry: inout AuditEntry, _ db: Database) throws {
        let head = try Row.fetchOne(
            try db.cachedStatement(
                sql: """
                    SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'auditEntry') AS seq,
                           (SELECT id FROM auditEntry ORDER BY id DESC LIMIT 1) AS id,
                           (SELECT hash FROM auditEntry ORDER BY id DESC LIMIT 1) AS hash,
                           (SELECT keyed FROM auditEntry ORDER BY id DESC LIMIT 1) AS keyed
                    """))
        let headKeyed: Bool = head?["keyed"] ?? false
        if headKeyed, auditKey == nil {
            throw AuditKeyError.keyRequired(since: try Self.keyedSince(db) ?? (head?["id"] ?? 0))
        }
        if auditKey != nil, !headKeyed, entry.action != AuditEntry.keyedAction {
            var switchEntry = AuditEntry.keyedSwitch(by: entry)
            try append(&switchEntry, db)
            return try append(&entry, db)
        }
        // The id is part of the hash, so it is chosen before the insert (never reused: AUTOINCREMENT).
        let sequence: Int64 = head?["seq"] ?? 0
        let lastID: Int64 = head?["id"] ?? 0
        entry.id = max(sequence, lastID) + 1
        // Hash the times exactly as they will be read back (the column keeps milliseconds).
        entry.recordedAt = StoredTime.truncated(entry.recordedAt)
        entry.itemCreatedAt = entry.itemCreatedAt.map(StoredTime.truncated)
        entry.escapeControlCharacters()
        entry.previousHash = head?["hash"] ?? AuditEntry.genesisHash
        entry.keyed = auditKey != nil
        entry.hash = entry.computedHash(key: auditKey) ?? entry.computedHash()
        try entry.insert(db)
    }

    /// Switches the chain to keyed hashes now, with `entry` (its actor fields) as the switch,
    /// unless it is keyed already; answers the switch entry's id, or nil when nothing was done.
    /// A store without a key refuses to write to a keyed chain, so the console checks this at start.
    @discardableResult
    public func switchAuditToKeyed(by entry: AuditEntry) async throws -> Int64? {
        guard auditKey != nil else { return nil }
        return try await writer.write { db in
            let headKeyed = try Bool.fetchOne(db, sql: "SELECT keyed FROM auditEntry ORDER BY id DESC LIMIT 1") ?? false
            guard !headKeyed else { return nil }
            var switchEntry = AuditEntry.keyedSwitch(by: entry)
            try append(&switchEntry, db)
            return switchEntry.id
        }
    }

    /// Whether `entry` carries the hash its contents give: keyed entries are checked with this
    /// store's audit key; `nil` when the entry is keyed and the store has no key to check it with.
    public func auditEntryHashMatches(_ entry: AuditEntry) -> Bool? {
        entry.computedHash(key: auditKey).map { $0 == entry.hash }
    }

    /// Whether this store's key is the one the chain's newest keyed entry was written with
    /// (true when nothing is keyed yet). A console started with another key would write a
    /// chain that no longer verifies, which reads exactly like tampering: it must not start.
    public func auditKeyWroteTheChain() async throws -> Bool {
        guard auditKey != nil else { return true }
        let newest = try await writer.read { db in
            try AuditEntry.filter(Column("keyed") == true).order(Column("id").desc).fetchOne(db)
        }
        guard let newest else { return true }
        return auditEntryHashMatches(newest) == true
    }

    /// The id of the switch entry when the chain is keyed (or of its first keyed entry, when
    /// a prune removed the switch); nil when it is not keyed.

    public func auditKeyedSince() async throws -> Int64? {
        try await writer.read { db in try Self.keyedSince(db) }
    }

    static func keyedSince(_ db: Database) throws -> Int64? {
        guard try Bool.fetchOne(db, sql: "SELECT keyed FROM auditEntry ORDER BY id DESC LIMIT 1") == true else { return nil }
        return try Int64.fetchOne(
            db,
            sql: """
                SELECT MIN(id) FROM auditEntry WHERE keyed AND id > COALESCE((SELECT MAX(id) FROM auditEntry WHERE NOT keyed), 0)
                """)
    }

    /// The newest entries first.
    public func auditEntries(limit: Int = 100) async throws -> [AuditEntry] {
        try await writer.read { db in try AuditEntry.order(Column("id").desc).limit(limit).fetchAll(db) }
    }

    public func auditEntryCount(_ filter: AuditFilter = AuditFilter()) async throws -> Int {
        let conditions = filter.sqlConditions()
        return try await writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auditEntry WHERE \(conditions.sql)", arguments: conditions.arguments) ?? 0
        }
    }

    public func auditEntry(id: Int64) async throws -> AuditEntry? {
        try await writer.read { db in try AuditEntry.fetchOne(db, key: id) }
    }

    /// One page of matching entries, newest first: those older than `before`, or the
    /// page just newer than `after`, or the newest.
    public func auditPage(_ filter: AuditFilter, before: Int64? = nil, after: Int64? = nil, limit: Int) async throws -> AuditPage {
        let conditions = filter.sqlConditions()
        return try await writer.read { db in
            var request = AuditEntry.filter(sql: conditions.sql, arguments: conditions.arguments)
            if let after {
                let newer = try request.filter(Column("id") > after).order(Column("id")).limit(limit + 1).fetchAll(db)
                let entries = Array(newer.prefix(limit).reversed())
                let hasOlder = try request.filter(Column("id") <= after).isEmpty(db) == false
                return AuditPage(entries: entries, hasOlder: hasOlder, hasNewer: newer.count > limit)
            }
            if let before { request = request.filter(Column("id") < before) }
            let older = try request.order(Column("id").desc).limit(limit + 1).fetchAll(db)
            let hasNewer =
                try before.map { id in
                    try AuditEntry.filter(sql: conditions.sql, arguments: conditions.arguments).filter(Column("id") >= id).isEmpty(db) == false
                } ?? false
            return AuditPage(entries: Array(older.prefix(limit)), hasOlder: older.count > limit, hasNewer: hasNewer)
        }
    }

    /// Matching entries in chain order after `afterID`: the unit an export streams.
    public func auditBatch(_ filter: AuditFilter, afterID: Int64, limit: Int) async throws -> [AuditEntry] {
        let conditions = filter.sqlConditions()
        return try await writer.read { db in
            try AuditEntry.filter(sql: conditions.sql, arguments: conditions.arguments).filter(Column("id") > afterID)
                .order(Column("id")).limit(limit).fetchAll(db)
        }
    }

    /// The ids of the entries just older and just newer than `id` in the whole log.
    public func auditNeighbours(of id: Int64) async throws -> (older: Int64?, newer: Int64?) {
        try await writer.read { db in
            (
                try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM auditEntry WHERE id < ?", arguments: [id]),
                try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM auditEntry WHERE id > ?", arguments: [id])
            )
        }
    }

    public func auditFilterChoices() async throws -> AuditFilterChoices {
        try await writer.read { db in
            func distinct(_ column: String) throws -> [String] {
                try String.fetchAll(db, sql: "SELECT DISTINCT \(column) FROM auditEntry ORDER BY \(column) LIMIT 200")
            }
            // Staff are those who acted: a failed or refused sign-in records the login as typed
            // (or a non-staff account), which must neither be offered nor crowd staff out of the 200.
            let actors = try String.fetchAll(
                db,
                sql: """
                    SELECT DISTINCT actorUsername FROM auditEntry
                    WHERE actorUsername <> '' AND (action <> ? OR outcome = ?)
                    ORDER BY actorUsername LIMIT 200
                    """, arguments: [AuditEntry.signInAction, AuditOutcome.succeeded.rawValue])
            return AuditFilterChoices(actors: actors, actions: try distinct("action"))
        }
    }

    /// Walks the chain from the first entry and answers where it breaks, if it does.
    /// After a prune the first entry chains to the checkpoint's record of the last removed
    /// one; and the newest entries cannot vanish unnoticed, because SQLite remembers the
    /// highest id it ever handed out. Keyed entries are checked with this store's key.
    public func verifyAuditChain() async throws -> AuditChainVerdict {
        try await writer.read { db in try Self.verifyAuditChain(db, key: auditKey) }
    }

    /// The chain of the database `db`, keyed entries checked with `key`: without a key a
    /// keyed chain does not verify, and with one a chain that was never keyed does not either
    /// (whoever removed the switch and every keyed entry must not pass as "never keyed").
    static func verifyAuditChain(_ db: Database, key: AuditKey?) throws -> AuditChainVerdict {
        let checkpoints = Dictionary(
            try Row.fetchAll(db, sql: "SELECT targetId, targetSlug FROM auditEntry WHERE action = ?", arguments: [AuditEntry.pruneCheckpointAction])
                .compactMap { row -> (Int64, String)? in
                    guard let id = Int64(row["targetId"] as String) else { return nil }
                    return (id, row["targetSlug"])
                },
            uniquingKeysWith: { first, _ in first })
        let acknowledged = try acknowledgedDamage(db)
        var previous: String?
        var lastID: Int64 = 0
        var count = 0
        var keyedSince: Int64?
        let cursor = try AuditEntry.order(Column("id")).fetchCursor(db)
        while let entry = try cursor.next() {
            let id = entry.id ?? 0
            let afterPrune = previous == nil && checkpoints[id - 1] == entry.previousHash
            let chains = previous.map { entry.previousHash == $0 } ?? (entry.previousHash == AuditEntry.genesisHash || afterPrune)
            guard chains else {
                return .broken(entryID: id, reason: "its previous hash does not match the entry before it (an entry was removed or moved)")
            }
            if let since = keyedSince, !entry.keyed {
                return .broken(entryID: id, reason: "it is not keyed, but the chain is keyed since entry \(since) (it was rewritten without the key)")
            }
            if entry.action == AuditEntry.keyedAction, !entry.keyed {
                return .broken(entryID: id, reason: "it switches the chain to keyed but is not keyed itself (it was rewritten without the key)")
            }
            if entry.keyed, keyedSince == nil {
                // Only the switch starts keyed entries, or the first one left after a prune removed it.
                guard entry.action == AuditEntry.keyedAction || afterPrune else {
                    return .broken(entryID: id, reason: "it is keyed, but no switch to keyed comes before it")
                }
                keyedSince = id
            }
            guard let expected = entry.computedHash(key: key) else {
                return .broken(entryID: id, reason: "the chain is keyed from here (HMAC-SHA256): verify it with the audit key (--audit-key)")
            }
            // An entry damaged before control characters were escaped (stored cut at a NUL) that
            // an audited re-anchor acknowledged: its stored hash still links the chain, which goes on.
            guard expected == entry.hash || acknowledged[id] == entry.hash else {
                return .broken(
                    entryID: id,
                    reason: entry.keyed
                        ? "its contents do not match its keyed hash (the entry was changed, or this is not the key it was written with)"
                        : "its contents do not match its hash (the entry was changed)")
            }
            previous = entry.hash
            lastID = id
            count += 1
        }
        let highest = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'auditEntry'") ?? 0
        if highest > lastID {
            return .broken(entryID: highest, reason: "the newest entries, up to this one, were removed (the log once reached it)")
        }
        if key != nil, keyedSince == nil {
            return .broken(
                entryID: lastID, reason: "an audit key was given but no entry is keyed: the chain never switched to keyed, or was rewritten without the switch")
        }
        return .intact(entries: count, head: previous ?? AuditEntry.genesisHash)
    }

    /// The entries an `audit.reanchor` entry acknowledged as damaged, with the hash each had then.
    static func acknowledgedDamage(_ db: Database) throws -> [Int64: String] {
        Dictionary(
            try Row.fetchAll(db, sql: "SELECT targetId, targetSlug FROM auditEntry WHERE action = ?", arguments: [AuditEntry.reanchorAction])
                .compactMap { row -> (Int64, String)? in
                    guard let id = Int64(row["targetId"] as String) else { return nil }
                    return (id, row["targetSlug"])
                },
            uniquingKeysWith: { first, _ in first })
    }

    /// Acknowledges entry `entryID` as damaged, with an `audit.reanchor` entry built from
    /// `acknowledgement`'s actor fields and reason, so the chain verifies past it again without
    /// rewriting anything. Only for the entry the chain first breaks at, and only when its
    /// contents alone do not match its hash: the entries around it still link to its stored hash
    /// (what a text stored cut at a NUL looks like), so nothing was removed, added or reordered.
    public func reanchorAudit(at entryID: Int64, acknowledgement: AuditEntry) async throws(AuditReanchorError) -> Int64 {
        do {
            return try await writer.write { db in
                guard case .broken(let brokenID, _) = try Self.verifyAuditChain(db, key: auditKey) else { throw AuditReanchorError.chainIntact }
                guard brokenID == entryID else { throw AuditReanchorError.notFirstBreak(firstBreak: brokenID) }
                guard let entry = try AuditEntry.fetchOne(db, key: entryID) else { throw AuditReanchorError.notFirstBreak(firstBreak: brokenID) }
                let before = try String.fetchOne(db, sql: "SELECT hash FROM auditEntry WHERE id < ? ORDER BY id DESC LIMIT 1", arguments: [entryID])
                let after = try String.fetchOne(db, sql: "SELECT previousHash FROM auditEntry WHERE id > ? ORDER BY id LIMIT 1", arguments: [entryID])
                let linked = (before.map { $0 == entry.previousHash } ?? true) && (after.map { $0 == entry.hash } ?? true)
                guard linked, let expected = entry.computedHash(key: auditKey), expected != entry.hash else {
                    throw AuditReanchorError.notContentDamage
                }
                var record = acknowledgement
                record.action = AuditEntry.reanchorAction
                record.targetKind = "auditLog"
                record.targetId = String(entryID)
                record.targetSlug = entry.hash
                record.targetName = "entry #\(entryID) (\(entry.action), recorded \(ISOTime.string(entry.recordedAt))) acknowledged as damaged"
                record.outcome = .succeeded
                try self.append(&record, db)
                return record.id ?? 0
            }
        } catch let error as AuditReanchorError {
            throw error
        } catch {
            throw .database(String(describing: error))
        }
    }

    /// Whether the entry an anchor names is still in the log with the hash the anchor kept
    /// (or, if a prune removed it, whether the prune's checkpoint kept that same hash).
    public func checkAuditAnchor(_ anchor: AuditAnchor) async throws -> AuditAnchorCheck {
        try await writer.read { db in
            if let hash = try String.fetchOne(db, sql: "SELECT hash FROM auditEntry WHERE id = ?", arguments: [anchor.id]) {
                return hash == anchor.hash ? .matches : .differs(found: hash)
            }
            let checkpoint = try Int64.fetchOne(
                db,
                sql: """
                    SELECT id FROM auditEntry WHERE action = ? AND targetId = ? AND targetSlug = ? ORDER BY id LIMIT 1
                    """, arguments: [AuditEntry.pruneCheckpointAction, String(anchor.id), anchor.hash])
            return checkpoint.map(AuditAnchorCheck.prunedBehind) ?? .missing
        }
    }

    /// Removes the entries recorded before `date`, after appending a checkpoint (built
    /// from `checkpoint`'s actor fields) that keeps the last removed entry's id and hash.
    public func pruneAudit(before date: Date, checkpoint: AuditEntry) async throws -> AuditPruneResult {
        try await writer.write { db in
            let firstKept = try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM auditEntry WHERE recordedAt >= ?", arguments: [date])
            guard
                let lastRemoved = try Row.fetchOne(
                    db, sql: "SELECT id, hash FROM auditEntry WHERE id < ? ORDER BY id DESC LIMIT 1", arguments: [firstKept ?? Int64.max])
            else { return AuditPruneResult(removed: 0, checkpointID: nil) }
            let lastID: Int64 = lastRemoved["id"]
            let removed = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM auditEntry WHERE id <= ?", arguments: [lastID]) ?? 0
            var entry = checkpoint
            entry.action = AuditEntry.pruneCheckpointAction
            entry.targetKind = "auditLog"
            entry.targetId = String(lastID)
            entry.targetSlug = lastRemoved["hash"]
            entry.targetName = "\(removed) entries up to #\(lastID), recorded before \(ISOTime.string(date))"
            entry.outcome = .succeeded
            try self.append(&entry, db)
            try db.execute(sql: "DELETE FROM auditEntry WHERE id <= ?", arguments: [lastID])
            return AuditPruneResult(removed: removed, checkpointID: entry.id)
        }
    }
}
