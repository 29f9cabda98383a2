import Foundation
import GRDB
import ModerationStore
import Testing

@Suite("Audit chain")
struct AuditChainTests {
    private func withEntries(_ count: Int, _ body: (ModerationStore, DatabaseQueue) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let store = try ModerationStore(path: path)
        for index in 0..<count {
            try store.appendAudit(AuditEntry(
                recordedAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(index)), actorId: 2, actorUsername: "staff",
                action: "library.approve", targetKind: "library", targetId: "\(index)", targetSlug: "slug-\(index)",
                targetName: "Name, \"quoted\" 📚 \(index)", statusBefore: "pending", statusAfter: "approved", reason: "",
                outcome: "applied", backendStatus: 200, requestId: "r\(index)", clientAddress: "127.0.0.1", userAgent: "test",
                itemCreatedAt: Date(timeIntervalSince1970: 1_790_000_000), actionId: nil))
        }
        // A second connection plays someone with the sqlite3 tool.
        let tamperer = try DatabaseQueue(path: path)
        try body(store, tamperer)
    }

    @Test("an untouched chain verifies and names its head")
    func intact() throws {
        try withEntries(5) { store, _ in
            let head = try #require(try store.auditEntries(limit: 1).first?.hash)
            #expect(try store.verifyAuditChain() == .intact(entries: 5, head: head))
        }
    }

    @Test("the database refuses edits through the ordinary path")
    func appendOnly() throws {
        try withEntries(2) { _, tamperer in
            #expect(throws: (any Error).self) {
                try tamperer.write { try $0.execute(sql: "UPDATE auditEntry SET reason = 'x' WHERE id = 1") }
            }
        }
    }

    @Test("changing any entry breaks the chain at that entry", arguments: [1, 3, 5])
    func changed(id: Int) throws {
        try withEntries(5) { store, tamperer in
            try tamperer.write { db in
                try db.execute(sql: "DROP TRIGGER auditEntry_noUpdate")
                try db.execute(sql: "UPDATE auditEntry SET outcome = 'conflict' WHERE id = ?", arguments: [id])
            }
            guard case .broken(let entryID, let reason) = try store.verifyAuditChain() else { Issue.record("not caught"); return }
            #expect(entryID == Int64(id))
            #expect(reason.contains("changed"))
        }
    }

    @Test("deleting an entry breaks the chain at the next one", arguments: [1, 3])
    func deleted(id: Int) throws {
        try withEntries(5) { store, tamperer in
            try tamperer.write { try $0.execute(sql: "DELETE FROM auditEntry WHERE id = ?", arguments: [id]) }
            #expect(try store.verifyAuditChain() == .broken(entryID: Int64(id + 1), reason: "its previous hash does not match the entry before it (an entry was removed or moved)"))
        }
    }
}
