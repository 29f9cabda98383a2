import Foundation
import GRDB
import ModerationStore
import Testing

/// A store with `count` entries one minute apart, and a second connection that plays
/// someone editing the file with the sqlite3 tool (trigger dropped, foreign keys off).
extension ModerationStore {
    /// A whole export as one text, fetched a batch at a time as the console streams it.
    func exportedText(_ format: AuditExportFormat, filter: AuditFilter = AuditFilter(), batchSize: Int = 2_000) async throws -> String {
        var exporter = AuditExporter(store: self, filter: filter, format: format, batchSize: batchSize)
        var bytes: [UInt8] = []
        var chunk: [UInt8] = []
        while try await exporter.nextChunk(into: &chunk) { bytes += chunk }
        return String(decoding: bytes, as: UTF8.self)
    }
}

struct AuditLogFile {
    let store: ModerationStore
    let tamperer: DatabaseQueue
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    static func with(_ count: Int, names: (Int) -> String = { "Name, \"quoted\" 📚 \($0)" }, _ body: (AuditLogFile) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let store = try ModerationStore(path: path)
        for index in 1...max(count, 1) where count > 0 {
            try await store.appendAudit(entry(index, name: names(index)))
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let tamperer = try DatabaseQueue(path: path, configuration: configuration)
        try await tamperer.write { try $0.execute(sql: "DROP TRIGGER auditEntry_noUpdate") }
        try await body(AuditLogFile(store: store, tamperer: tamperer))
    }

    static func entry(_ index: Int, name: String, at date: Date? = nil) -> AuditEntry {
        AuditEntry(
            recordedAt: date ?? start.addingTimeInterval(Double(index) * 60 + 0.4567), actorId: 2, actorUsername: index % 2 == 0 ? "staff" : "moderator",
            action: index % 3 == 0 ? "library.reject" : "library.approve", targetKind: "library", targetId: "\(index)",
            targetSlug: "slug-\(index)", targetName: name, statusBefore: "pending", statusAfter: "approved", reason: "",
            outcome: .applied, backendStatus: 200, requestId: "r\(index)", clientAddress: "127.0.0.1", userAgent: "test",
            itemCreatedAt: start.addingTimeInterval(-86_400 + 0.1239), actionId: nil)
    }

    func verdict() async throws -> AuditChainVerdict { try await store.verifyAuditChain() }
}

@Suite("Audit chain")
struct AuditChainTests {
    static let positions = [1, 4, 8]

    @Test("an untouched chain verifies and names its head")
    func intact() async throws {
        try await AuditLogFile.with(5) { (log: AuditLogFile) throws in
            let head = try #require(try await log.store.auditEntries(limit: 1).first?.hash)
            #expect(try await log.verdict() == .intact(entries: 5, head: head))
        }
    }

    @Test("an empty log verifies")
    func empty() async throws {
        try await AuditLogFile.with(0) { (log: AuditLogFile) throws in
            #expect(try await log.verdict() == .intact(entries: 0, head: AuditEntry.genesisHash))
        }
    }

    @Test("the database refuses edits through the ordinary path")
    func appendOnly() async throws {
        // setup: the store's own migrated database, with one entry, and a plain connection to it
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let store = try ModerationStore(path: path)
        try await store.appendAudit(AuditLogFile.entry(1, name: "Corner Books"))
        let plain = try DatabaseQueue(path: path)

        // act
        let refusal = #expect(throws: DatabaseError.self) {
            try plain.write { try $0.execute(sql: "UPDATE auditEntry SET reason = 'edited' WHERE id = 1") }
        }

        // check: the migration's trigger said no, and the entry is as it was
        #expect(refusal?.resultCode == .SQLITE_CONSTRAINT)
        #expect(refusal?.message == "audit entries are append-only")
        #expect(try await store.auditEntries().first?.reason == "")
        #expect(try await store.verifyAuditChain() == .intact(entries: 1, head: try #require(try store.auditEntries().first?.hash)))
    }

    static let fields = [
        ("recordedAt", "'2001-01-01 00:00:00.000'"), ("actorId", "coalesce(actorId, 0) + 1"), ("actorUsername", "actorUsername || 'x'"),
        ("action", "'library.approve.x'"), ("targetKind", "targetKind || 'x'"), ("targetId", "targetId || '0'"),
        ("targetSlug", "targetSlug || 'x'"), ("targetName", "targetName || ' '"), ("statusBefore", "'approved'"),
        ("statusAfter", "'rejected'"), ("reason", "reason || 'edited'"), ("outcome", "'conflict'"), ("backendStatus", "500"),
        ("requestId", "requestId || 'x'"), ("clientAddress", "'10.0.0.1'"), ("userAgent", "userAgent || 'x'"),
        ("itemCreatedAt", "NULL"), ("actionId", "coalesce(actionId, 0) + 100"), ("previousHash", Self.flipFirstCharacter("previousHash")),
        ("hash", Self.flipFirstCharacter("hash")),
    ]

    /// One hex digit changed, whatever it was.
    static func flipFirstCharacter(_ column: String) -> String {
        "(CASE WHEN substr(\(column), 1, 1) = 'a' THEN 'b' ELSE 'a' END) || substr(\(column), 2)"
    }

    @Test("changing any field of an entry at the start, middle or end breaks the chain at that entry", arguments: positions)
    func changed(position: Int) async throws {
        try await AuditLogFile.with(8) { (log: AuditLogFile) throws in
            for (field, newValue) in Self.fields {
                let original = try log.tamperer.read {
                    try Row.fetchOne($0, sql: "SELECT \(field) AS value FROM auditEntry WHERE id = ?", arguments: [position])
                }
                try log.tamperer.write { try $0.execute(sql: "UPDATE auditEntry SET \(field) = \(newValue) WHERE id = ?", arguments: [position]) }
                guard case .broken(let entryID, _) = try await log.verdict() else {
                    Issue.record("changing \(field) of entry \(position) was not caught")
                    continue
                }
                #expect(entryID == Int64(position), "changing \(field)")
                let value = original?["value"] as DatabaseValue? ?? .null
                try log.tamperer.write { try $0.execute(sql: "UPDATE auditEntry SET \(field) = ? WHERE id = ?", arguments: [value, position]) }
                #expect(try await log.verdict() == .intact(entries: 8, head: try log.store.auditEntries(limit: 1)[0].hash), "restoring \(field)")
            }
        }
    }

    @Test("deleting an entry at the start, middle or end breaks the chain where it was", arguments: positions)
    func deleted(position: Int) async throws {
        try await AuditLogFile.with(8) { (log: AuditLogFile) throws in
            try log.tamperer.write { try $0.execute(sql: "DELETE FROM auditEntry WHERE id = ?", arguments: [position]) }
            guard case .broken(let entryID, let reason) = try await log.verdict() else {
                Issue.record("not caught")
                return
            }
            // The next entry no longer chains; the newest one is missed by SQLite's memory of the highest id.
            #expect(entryID == Int64(position == 8 ? 8 : position + 1))
            #expect(reason.contains("removed"))
        }
    }

    @Test("swapping two neighbouring entries breaks the chain at the first of them", arguments: [1, 4, 7])
    func swapped(position: Int) async throws {
        try await AuditLogFile.with(8) { (log: AuditLogFile) throws in
            try log.tamperer.write { db in
                try db.execute(sql: "UPDATE auditEntry SET id = -1 WHERE id = ?", arguments: [position])
                try db.execute(sql: "UPDATE auditEntry SET id = ? WHERE id = ?", arguments: [position, position + 1])
                try db.execute(sql: "UPDATE auditEntry SET id = ? WHERE id = -1", arguments: [position + 1])
            }
            guard case .broken(let entryID, _) = try await log.verdict() else {
                Issue.record("not caught")
                return
            }
            #expect(entryID == Int64(position))
        }
    }

    @Test("times are hashed as stored, whatever their sub-millisecond digits")
    func subMillisecondTimes() async throws {
        try await AuditLogFile.with(0) { (log: AuditLogFile) throws in
            for offset in [0.0001, 0.0004, 0.0005, 0.0006, 0.9996, 0.123456] {
                var entry = AuditLogFile.entry(1, name: "x")
                entry.recordedAt = AuditLogFile.start.addingTimeInterval(offset)
                entry.itemCreatedAt = AuditLogFile.start.addingTimeInterval(-offset)
                try await log.store.appendAudit(entry)
            }
            guard case .intact(6, _) = try await log.verdict() else {
                Issue.record("sub-millisecond times broke the chain")
                return
            }
        }
    }
}

@Suite("Audit prune")
struct AuditPruneTests {
    private static func checkpoint() -> AuditEntry { AuditLogFile.entry(0, name: "", at: Date()) }

    @Test("pruning removes old entries behind a checkpoint, and the rest still verifies")
    func pruneThenVerify() async throws {
        try await AuditLogFile.with(10) { (log: AuditLogFile) throws in
            let removedHash = try #require(try await log.store.auditEntry(id: 4)?.hash)
            let result = try await log.store.pruneAudit(before: AuditLogFile.start.addingTimeInterval(4 * 60 + 30), checkpoint: Self.checkpoint())
            #expect(result == AuditPruneResult(removed: 4, checkpointID: 11))
            #expect(try await log.store.auditEntry(id: 4) == nil)
            let checkpoint = try #require(try await log.store.auditEntry(id: 11))
            #expect(checkpoint.action == AuditEntry.pruneCheckpointAction)
            #expect(checkpoint.targetId == "4" && checkpoint.targetSlug == removedHash)
            #expect(try await log.verdict() == .intact(entries: 7, head: checkpoint.hash))
            // A second prune, later, removes the first checkpoint too and still verifies.
            let second = try await log.store.pruneAudit(before: Date(), checkpoint: Self.checkpoint())
            #expect(second == AuditPruneResult(removed: 7, checkpointID: 12))
            guard case .intact(1, _) = try await log.verdict() else {
                Issue.record("second prune broke the chain")
                return
            }
        }
    }

    @Test("nothing old enough means nothing removed and no checkpoint")
    func nothingToPrune() async throws {
        try await AuditLogFile.with(3) { (log: AuditLogFile) throws in
            #expect(
                try await log.store.pruneAudit(before: AuditLogFile.start, checkpoint: Self.checkpoint()) == AuditPruneResult(removed: 0, checkpointID: nil))
            #expect(try await log.store.auditEntryCount() == 3)
        }
    }

    @Test("tampering after a prune is still caught", arguments: ["change", "delete first", "forge checkpoint"])
    func tamperAfterPrune(kind: String) async throws {
        try await AuditLogFile.with(10) { (log: AuditLogFile) throws in
            _ = try await log.store.pruneAudit(before: AuditLogFile.start.addingTimeInterval(5 * 60 + 30), checkpoint: Self.checkpoint())
            let sql =
                switch kind {
                case "change": "UPDATE auditEntry SET reason = 'edited' WHERE id = 8"
                case "delete first": "DELETE FROM auditEntry WHERE id = 6"
                default: "UPDATE auditEntry SET targetId = '6' WHERE id = 11"
                }
            try log.tamperer.write { try $0.execute(sql: sql) }
            guard case .broken(let entryID, _) = try await log.verdict() else {
                Issue.record("\(kind) not caught")
                return
            }
            #expect(entryID == (kind == "change" ? 8 : kind == "delete first" ? 7 : 6))
        }
    }
}
