import Foundation
import GRDB
import ModerationStore
import TestSupport
import Testing

/// `console backup`, `console restore` and the keyed audit chain, run as the built binary
/// the way an operator runs them, against real SQLite files and a real `console serve`.
@Suite("console backup, restore and the keyed audit chain", .timeLimit(.minutes(5)))
struct DataSafetyCommandTests {
    private func console(_ arguments: String...) throws -> ChildProcess {
        try ChildProcess.run(ConsoleBinary.path, arguments)
    }

    /// A database with `count` decisions, names hostile on purpose.
    private func decisions(_ count: Int, at path: String, key: AuditKey? = nil) async throws {
        let store = try ModerationStore(path: path, auditKey: key)
        for index in 1...count {
            try await store.appendAudit(
                AuditEntry(
                    recordedAt: Date(), actorId: 3, actorUsername: "staff", action: "library.approve", targetKind: "library",
                    targetId: "\(index)", targetSlug: "slug-\(index)", targetName: "<script>alert(\"\(index)\")</script> مكتبة 📚",
                    statusBefore: "pending", statusAfter: "approved", reason: "", outcome: .applied, backendStatus: 200,
                    requestId: "r\(index)", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil, actionId: nil))
        }
    }

    private func writeKey(_ path: String, byte: UInt8 = 42, mode: Int = 0o600) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: byte, count: 32), attributes: [.posixPermissions: mode])
    }

    @Test("backup prints where, the integrity check and the chain's head, refuses to overwrite without --force, and the copy verifies")
    func backup() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.path("console.sqlite")
        let copy = directory.path("backup.sqlite")
        try await decisions(4, at: database)
        let head = try #require(try await ModerationStore(path: database).auditEntries(limit: 1).first?.hash)

        let first = try console("backup", "--database", database, "--to", copy)
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(first.output == "Backed up to \(copy)\nIntegrity: ok\nAudit chain: OK, 4 entries, head entry 4, hash \(head)\n")
        let verify = try console("audit", "verify", "--database", copy)
        #expect(verify.output == "OK, 4 entries, head \(head)\n")

        try await decisions(1, at: database)
        let again = try console("backup", "--database", database, "--to", copy)
        #expect(again.status == 1)
        #expect(again.errorOutput.contains("\(copy) already exists; choose another name, or give --force to replace it."))
        #expect(try await ModerationStore(path: copy).auditEntryCount() == 4)
        let forced = try console("backup", "--database", database, "--to", copy, "--force")
        #expect(forced.status == 0, "\(forced.errorOutput)")
        #expect(forced.output.contains("Audit chain: OK, 5 entries, head entry 5"))
    }

    @Test("restore is refused while `console serve` runs on the database, and works once it has stopped")
    func restoreRefusedWhileServing() async throws {
        // setup: a backup of 3 entries; the live database has 2 more and a console serving it
        let directory = try directory()
        defer { directory.remove() }
        let database = directory.path("console.sqlite")
        let copy = directory.path("backup.sqlite")
        try await decisions(3, at: database)
        #expect(try console("backup", "--database", database, "--to", copy).status == 0)
        try await decisions(2, at: database)
        let port = try FreePort.find()
        let log = directory.path("serve.log")
        let serve = try ConsoleBinary.start(
            [
                "serve", "--no-metrics", "--database", database, "--port", String(port), "--backend-url", "http://127.0.0.1:1/api/v1/", "--log-level", "error",
                "--templates", RepositoryPaths.templates, "--public", RepositoryPaths.publicFiles,
            ],
            in: directory.url, log: log)
        defer { ConsoleBinary.stop(serve) }
        try await ConsoleBinary.waitUntilUp(serve, port: port, log: log)

        // act and check: a backup works while it runs; a restore is refused in words, nothing replaced
        let during = try console("backup", "--database", database, "--to", directory.path("during.sqlite"))
        #expect(during.status == 0, "\(during.errorOutput)")
        #expect(during.output.contains("Audit chain: OK, 5 entries, head entry 5"))
        let refused = try console("restore", "--database", database, "--from", copy)
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("Not restored. A console is running on this database"), "\(refused.errorOutput)")
        #expect(try await ModerationStore(path: database).auditEntryCount() == 5)

        ConsoleBinary.stop(serve)
        let restored = try console("restore", "--database", database, "--from", copy)
        #expect(restored.status == 0, "\(restored.errorOutput)")
        #expect(restored.output.hasPrefix("Restored \(copy) to \(database)\nIntegrity: ok\nAudit chain: OK, 3 entries, head entry 3"))
        #expect(try console("audit", "verify", "--database", database).output.hasPrefix("OK, 3 entries, head "))
    }

    @Test("serve with --audit-key switches the chain; verify then needs the key, and an anchor checks out until the log is rewritten")
    func keyedChainAndAnchor() async throws {
        // setup: an unkeyed log of 2, a key file, and a console started once with the key
        let directory = try directory()
        defer { directory.remove() }
        let database = directory.path("console.sqlite")
        let key = directory.path("audit.key")
        let otherKey = directory.path("other.key")
        writeKey(key)
        writeKey(otherKey, byte: 7)
        try await decisions(2, at: database)
        let port = try FreePort.find()
        let log = directory.path("serve.log")
        let serve = try ConsoleBinary.start(
            [
                "serve", "--no-metrics", "--database", database, "--port", String(port), "--backend-url", "http://127.0.0.1:1/api/v1/", "--log-level", "error",
                "--templates", RepositoryPaths.templates, "--public", RepositoryPaths.publicFiles, "--audit-key", key,
            ],
            in: directory.url, log: log)
        defer { ConsoleBinary.stop(serve) }
        try await ConsoleBinary.waitUntilUp(serve, port: port, log: log)
        ConsoleBinary.stop(serve)

        // check: the switch entry, then verify with and without keys
        let switchEntry = try #require(try await ModerationStore(path: database).auditEntry(id: 3))
        #expect(switchEntry.action == "audit.keyed")
        #expect(switchEntry.keyed)
        let keyed = try console("audit", "verify", "--database", database, "--audit-key", key)
        #expect(keyed.status == 0)
        #expect(keyed.output.hasPrefix("OK, 3 entries, head \(switchEntry.hash)"))
        let unkeyed = try console("audit", "verify", "--database", database)
        #expect(unkeyed.status == 1)
        #expect(unkeyed.output == "BROKEN at entry 3: the chain is keyed from here (HMAC-SHA256): verify it with the audit key (--audit-key)\n")
        let wrong = try console("audit", "verify", "--database", database, "--audit-key", otherKey)
        #expect(wrong.status == 1)
        #expect(wrong.output.hasPrefix("BROKEN at entry 3: its contents do not match its keyed hash"))
        // A console without the key refuses to start rather than break the chain at the first sign-in.
        let keyless = try console("serve", "--database", database, "--port", "0")
        #expect(keyless.status != 0)
        #expect(keyless.errorOutput.contains("The audit log is keyed since entry 3"), "\(keyless.errorOutput)")
        // Nor with another key: what it wrote would never verify, and would read as tampering.
        let otherKeyed = try console("serve", "--database", database, "--port", "0", "--audit-key", otherKey)
        #expect(otherKeyed.status != 0)
        #expect(otherKeyed.errorOutput.contains("is not the key the audit log was written with"), "\(otherKeyed.errorOutput)")
        #expect(try await ModerationStore(path: database).auditEntryCount() == 3, "nothing written with the other key")

        // act: anchor, then verify against it; then rewrite the head with a plain hash
        try await decisions(1, at: database, key: try AuditKey.load(path: key))
        let anchorRun = try console("audit", "anchor", "--database", database, "--audit-key", key)
        #expect(anchorRun.status == 0, "\(anchorRun.errorOutput)")
        let line = anchorRun.output.trimmingCharacters(in: .newlines)
        #expect(line.hasPrefix("audit-anchor id=4 hash="))
        #expect(line.hasSuffix(" keyed=yes"))
        let anchored = try console("audit", "verify", "--database", database, "--audit-key", key, "--anchor", line)
        #expect(anchored.status == 0)
        #expect(anchored.output.hasSuffix("Anchor OK: entry 4 still has the anchored hash\n"))
        let tamperer = try DatabaseQueue.waiting(path: database)
        try await tamperer.write { db in
            try db.execute(sql: "DROP TRIGGER auditEntry_noUpdate")
            try db.execute(sql: "DELETE FROM auditEntry WHERE id = 4")
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = 3 WHERE name = 'auditEntry'")
        }
        try tamperer.close()
        let truncated = try console("audit", "verify", "--database", database, "--audit-key", key, "--anchor", line)
        #expect(truncated.status == 1)
        #expect(truncated.output.hasSuffix("ANCHOR BROKEN at entry 4: the anchored entry is gone, and no prune checkpoint accounts for it\n"))
        let open = directory.path("open.key")
        writeKey(open, mode: 0o644)
        let tooOpen = try console("audit", "verify", "--database", database, "--audit-key", open)
        #expect(tooOpen.status == 1)
        #expect(tooOpen.errorOutput.contains("is readable by other users (mode 644)"))
    }

    private func directory() throws -> TemporaryDirectory { try TemporaryDirectory() }
}
