import Foundation
import GRDB
import Testing

@testable import ModerationStore

/// A log whose chain is keyed: a key file, the store that writes with it, and a plain
/// connection that plays someone who can rewrite the database but has not got the key.
private struct KeyedLog {
    let directory: URL
    let path: String
    let key: AuditKey
    let store: ModerationStore
    let tamperer: DatabaseQueue

    static func with(unkeyed: Int, keyed: Int, _ body: (KeyedLog) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let plain = try ModerationStore(path: path)
        for index in 0..<unkeyed { try await plain.appendAudit(AuditLogFile.entry(index + 1, name: "Unkeyed <script>“\(index)” 📚")) }
        let key = try AuditKey(key: Data((0..<32).map { UInt8($0) }))
        let store = try ModerationStore(path: path, auditKey: key)
        for index in 0..<keyed { try await store.appendAudit(AuditLogFile.entry(unkeyed + index + 1, name: "مكتبة \(index) \"keyed\"")) }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        let tamperer = try DatabaseQueue(path: path, configuration: configuration)
        try await tamperer.write { try $0.execute(sql: "DROP TRIGGER auditEntry_noUpdate") }
        try await body(KeyedLog(directory: directory, path: path, key: key, store: store, tamperer: tamperer))
    }

    func store(key: AuditKey?) throws -> ModerationStore { try ModerationStore(path: path, auditKey: key) }
}

@Suite("Keyed audit chain")
struct AuditKeyTests {
    static func otherKey() throws -> AuditKey { try AuditKey(key: Data(repeating: 7, count: 32)) }

    @Test("a keyed chain verifies with its key, and not without it or with another key")
    func keyedVerifies() async throws {
        try await KeyedLog.with(unkeyed: 0, keyed: 4) { log in
            let entries = try await log.store.auditEntries(limit: 10).reversed()
            // The switch comes first, then every entry keyed.
            #expect(entries.map(\.action).first == AuditEntry.keyedAction)
            let unkeyed = entries.filter { !$0.keyed }.compactMap(\.id)
            let plainHashed = entries.filter { $0.hash == $0.computedHash() }.compactMap(\.id)
            #expect(unkeyed.isEmpty)
            #expect(plainHashed.isEmpty)
            let verdict = try await log.store.verifyAuditChain()
            guard case .intact(5, _) = verdict else {
                Issue.record("the keyed chain did not verify with its key: \(verdict)")
                return
            }
            let withoutKey = try await log.store(key: nil).verifyAuditChain()
            #expect(withoutKey == .broken(entryID: 1, reason: "the chain is keyed from here (HMAC-SHA256): verify it with the audit key (--audit-key)"))
            guard case .broken(1, let reason) = try await log.store(key: Self.otherKey()).verifyAuditChain() else {
                Issue.record("another key verified the chain")
                return
            }
            #expect(reason.contains("keyed hash"))
        }
    }

    @Test("an entry rewritten with a recomputed plain SHA-256 hash is found, whether it claims to be keyed or not")
    func plainRewriteDetected() async throws {
        for flipsKeyed in [true, false] {
            try await KeyedLog.with(unkeyed: 2, keyed: 4) { log in
                // Entry 6 is the fourth after the switch (3); the rewrite keeps its place in the chain.
                var forgedEntry = try #require(try await log.store.auditEntry(id: 6))
                forgedEntry.targetName = "Someone else <script>alert(1)</script>"
                let entry = forgedEntry
                let forged = entry.computedHash()
                try await log.tamperer.write { db in
                    try db.execute(
                        sql: "UPDATE auditEntry SET targetName = ?, hash = ?, keyed = ? WHERE id = 6",
                        arguments: [entry.targetName, forged, flipsKeyed ? 0 : 1])
                    // The next entry is re-chained to the forged hash too: only the key could fix its own hash.
                    try db.execute(sql: "UPDATE auditEntry SET previousHash = ? WHERE id = 7", arguments: [forged])
                }
                guard case .broken(let id, let reason) = try await log.store.verifyAuditChain() else {
                    Issue.record("a plain SHA-256 rewrite verified")
                    return
                }
                #expect(id == 6)
                #expect(reason.contains(flipsKeyed ? "not keyed, but the chain is keyed since entry 3" : "keyed hash"))
            }
        }
    }

    @Test("removing the switch and every keyed entry, then re-chaining in plain SHA-256, fails with the key")
    func switchRemovedDetected() async throws {
        try await KeyedLog.with(unkeyed: 3, keyed: 2) { log in
            try await log.tamperer.write { db in
                try db.execute(sql: "DELETE FROM auditEntry WHERE keyed")
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = 3 WHERE name = 'auditEntry'")
            }
            // Without the key it looks like a log that was never keyed; the key is what tells.
            guard case .intact(3, _) = try await log.store(key: nil).verifyAuditChain() else {
                Issue.record("the stripped chain should look intact without the key")
                return
            }
            guard case .broken(_, let reason) = try await log.store.verifyAuditChain() else {
                Issue.record("a chain stripped of its keyed entries verified with the key")
                return
            }
            #expect(reason.contains("no entry is keyed"))
        }
    }

    @Test("an unkeyed chain that gets a key switches with an audit.keyed entry and verifies; unkeyed writers are then refused")
    func switchFromUnkeyed() async throws {
        try await KeyedLog.with(unkeyed: 3, keyed: 2) { log in
            let switchEntry = try #require(try await log.store.auditEntry(id: 4))
            #expect(switchEntry.action == AuditEntry.keyedAction)
            #expect(switchEntry.keyed)
            #expect(try await log.store.auditEntry(id: 3)?.keyed == false)
            #expect(try await log.store.auditKeyedSince() == 4)
            let verdict = try await log.store.verifyAuditChain()
            guard case .intact(6, _) = verdict else {
                Issue.record("the switched chain did not verify: \(verdict)")
                return
            }
            #expect(
                try await log.store(key: nil).verifyAuditChain()
                    == .broken(
                        entryID: 4, reason: "the chain is keyed from here (HMAC-SHA256): verify it with the audit key (--audit-key)"))
            await #expect(throws: AuditKeyError.keyRequired(since: 4)) {
                try await log.store(key: nil).appendAudit(AuditLogFile.entry(9, name: "unkeyed writer"))
            }
            // Switching again does nothing: the chain is keyed already.
            #expect(try await log.store.switchAuditToKeyed(by: AuditLogFile.entry(9, name: "")) == nil)
        }
    }

    @Test("a prune that removes the switch leaves a keyed chain that still verifies")
    func pruneBehindSwitch() async throws {
        try await KeyedLog.with(unkeyed: 2, keyed: 5) { log in
            let result = try await log.store.pruneAudit(
                before: AuditLogFile.start.addingTimeInterval(5 * 60 + 30), checkpoint: AuditLogFile.entry(99, name: "prune"))
            #expect(result.removed == 6)
            #expect(try await log.store.auditEntry(id: 3) == nil)
            let verdict = try await log.store.verifyAuditChain()
            guard case .intact = verdict else {
                Issue.record("pruned keyed chain did not verify: \(verdict)")
                return
            }
        }
    }

    @Test("an anchor line reads back, matches its entry, and catches a rewrite, a removal and a prune")
    func anchorRoundTrip() async throws {
        try await KeyedLog.with(unkeyed: 1, keyed: 4) { log in
            let head = try #require(try await log.store.auditEntries(limit: 1).first)
            let anchor = AuditAnchor(head: head)
            #expect(anchor.line.hasPrefix("audit-anchor id=6 hash=\(head.hash) recorded="))
            #expect(anchor.line.hasSuffix(" keyed=yes"))
            // Read back whole (times compare as the line writes them: to the millisecond).
            #expect(AuditAnchor(line: "  \"\(anchor.line)\"\n")?.line == anchor.line)
            #expect(AuditAnchor(line: "audit-anchor id=6 hash=abc recorded=2026-01-01T00:00:00Z keyed=yes") == nil)
            #expect(AuditAnchor(line: "<script>alert(1)</script>") == nil)
            #expect(try await log.store.checkAuditAnchor(anchor) == .matches)
            let elsewhere = AuditAnchor(id: 6, hash: String(repeating: "a", count: 64), recordedAt: head.recordedAt, keyed: true)
            #expect(try await log.store.checkAuditAnchor(elsewhere) == .differs(found: head.hash))
            let gone = AuditAnchor(id: 40, hash: head.hash, recordedAt: head.recordedAt, keyed: true)
            #expect(try await log.store.checkAuditAnchor(gone) == .missing)
            // A prune before 03:30 removes entries 1 to 4; its checkpoint keeps entry 4's hash, not 2's.
            let lastRemoved = await AuditAnchor(head: try #require(try log.store.auditEntry(id: 4)))
            let earlier = await AuditAnchor(head: try #require(try log.store.auditEntry(id: 2)))
            _ = try await log.store.pruneAudit(before: AuditLogFile.start.addingTimeInterval(3 * 60 + 30), checkpoint: AuditLogFile.entry(99, name: "prune"))
            #expect(try await log.store.auditEntry(id: 4) == nil)
            #expect(try await log.store.checkAuditAnchor(lastRemoved) == .prunedBehind(checkpoint: 7))
            #expect(try await log.store.checkAuditAnchor(earlier) == .missing)
        }
    }

    @Test(
        "an export of a keyed chain verifies with the key, and points at the switch without it",
        arguments: AuditExportFormat.allCases.filter(\.canBeVerified))
    func keyedExport(format: AuditExportFormat) async throws {
        try await KeyedLog.with(unkeyed: 2, keyed: 3) { log in
            let entries = try await AuditExportFile.entries(in: try log.store.exportedText(format))
            #expect(entries.count == 6)
            guard case .intact(6, let head, 0) = AuditExportFile.verify(entries, key: log.key) else {
                Issue.record("the keyed export did not verify with the key: \(AuditExportFile.verify(entries, key: log.key))")
                return
            }
            #expect(head == entries.last?.hash)
            #expect(
                AuditExportFile.verify(entries)
                    == .broken(
                        entryID: 3, reason: "the chain is keyed from here (HMAC-SHA256): verify the export with the audit key (--audit-key)"))
            // The last entry rewritten with a plain hash, after keyed ones: a break, with the key.
            var forged = entries
            forged[5].targetName = "Someone else"
            forged[5].hash = forged[5].computedHash()
            guard case .broken(6, let reason) = AuditExportFile.verify(forged, key: log.key) else {
                Issue.record("a plain rewrite in a keyed export verified")
                return
            }
            #expect(reason.contains("not keyed, but the chain is keyed since entry 3"))
        }
    }

    @Test("a key file must hold 32 or more bytes and be readable by its owner alone")
    func keyFileRules() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("audit.key").path
        let short = directory.appendingPathComponent("short.key").path
        let open = directory.appendingPathComponent("open.key").path
        _ = FileManager.default.createFile(atPath: good, contents: Data(repeating: 1, count: 48), attributes: [.posixPermissions: 0o600])
        _ = FileManager.default.createFile(atPath: short, contents: Data(repeating: 1, count: 16), attributes: [.posixPermissions: 0o600])
        _ = FileManager.default.createFile(atPath: open, contents: Data(repeating: 1, count: 32), attributes: [.posixPermissions: 0o644])
        _ = try AuditKey.load(path: good)
        #expect(throws: AuditKeyError.tooShortFile(short, 16)) { try AuditKey.load(path: short) }
        #expect(throws: AuditKeyError.tooOpen(open, mode: 0o644)) { try AuditKey.load(path: open) }
        #expect(throws: AuditKeyError.missing(directory.appendingPathComponent("none").path)) {
            try AuditKey.load(path: directory.appendingPathComponent("none").path)
        }
    }
}
