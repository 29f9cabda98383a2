import Foundation
import GRDB
import Testing

@testable import ModerationStore

@Suite("Backup and restore")
struct BackupTests {
    private func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func entry(_ index: Int) -> AuditEntry {
        AuditLogFile.entry(index, name: "Café <script>alert(\"\(index)\")</script> مكتبة 📚", at: Date())
    }

    @Test("a backup taken while another connection keeps writing is one consistent, verifying copy")
    func backupWhileWriting() async throws {
        // setup: a log, and a second store (its own pool) appending as fast as it can
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let store = try ModerationStore(path: path)
        for index in 1...200 { try await store.appendAudit(entry(index)) }
        let writer = try ModerationStore(path: path)
        let writing = Task.detached { () throws -> Int in
            var written = 0
            while !Task.isCancelled {
                do {
                    try await writer.appendAudit(AuditLogFile.entry(1_000 + written, name: "written during the backup", at: Date()))
                } catch is CancellationError {
                    break  // GRDB's async write ends with the task
                }
                written += 1
            }
            return written
        }

        // act: three backups while the writes go on
        var checks: [DatabaseCopyCheck] = []
        for number in 1...3 {
            try await Task.sleep(for: .milliseconds(50))
            checks.append(try store.backup(to: directory.appendingPathComponent("backup-\(number).sqlite").path))
        }
        writing.cancel()
        let written = try await writing.value

        // check: each copy is a single file that verifies on its own, and saw more than the last
        #expect(written > 0)
        #expect(checks.map(\.entries) == checks.map(\.entries).sorted())
        for (number, check) in checks.enumerated() {
            let copyPath = directory.appendingPathComponent("backup-\(number + 1).sqlite").path
            #expect(check.entries >= 200)
            #expect(!FileManager.default.fileExists(atPath: copyPath + "-wal"))
            let copy = try DatabaseQueue(path: copyPath)
            #expect(try await copy.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
            #expect(try await copy.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "delete")
            try copy.close()
            #expect(try await ModerationStore(path: copyPath).verifyAuditChain() == .intact(entries: check.entries, head: check.head))
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }

    private func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }

    @Test(
        "every file holding sessions and sealed tokens is 0600: a new database with its -wal and -shm, an old 0644 one once opened, and both sides of a restore"
    )
    func databaseFilesAreOwnerOnly() async throws {
        // setup
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fresh = directory.appendingPathComponent("fresh.sqlite").path
        let old = directory.appendingPathComponent("old.sqlite").path
        let backup = directory.appendingPathComponent("backup.sqlite").path
        do {
            let store = try ModerationStore(path: old)
            try await store.appendAudit(entry(1))
            _ = try store.backup(to: backup)
        }
        for file in [old, backup] { try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file) }

        // act
        let store = try ModerationStore(path: fresh)
        try await store.appendAudit(entry(1))
        let reopened = try ModerationStore(path: old)
        try await reopened.appendAudit(entry(2))
        let modesWhileOpen = [fresh, fresh + "-wal", fresh + "-shm", old, old + "-wal", old + "-shm"].map { ($0, mode($0)) }
        _ = try ModerationStore.restore(from: backup, to: fresh, auditKey: nil)

        // check
        for (file, mode) in modesWhileOpen { #expect(mode == 0o600, "\(file): \(String(mode, radix: 8))") }
        #expect(mode(fresh) == 0o600, "the restored database, from a 0644 backup")
        #expect(mode(fresh + ".before-restore") == 0o600)
    }

    @Test("a backup never overwrites an existing file unless asked to")
    func backupRefusesToOverwrite() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path)
        try await store.appendAudit(entry(1))
        let target = directory.appendingPathComponent("backup.sqlite").path
        _ = FileManager.default.createFile(atPath: target, contents: Data("keep me".utf8))
        #expect(throws: DatabaseCopyError.exists(target)) { try store.backup(to: target) }
        #expect(FileManager.default.contents(atPath: target) == Data("keep me".utf8))
        let check = try store.backup(to: target, replacing: true)
        #expect(check.entries == 1)
        #expect(try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int == 0o600)
        #expect(try await ModerationStore(path: target).auditEntryCount() == 1)
    }

    @Test("a backup never lands on the database it copies, --force or not")
    func backupNeverOntoItself() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let store = try ModerationStore(path: path)
        try await store.appendAudit(entry(1))
        #expect(throws: DatabaseCopyError.ontoItself(path)) { try store.backup(to: path, replacing: true) }
        #expect(throws: DatabaseCopyError.ontoItself(directory.appendingPathComponent("./console.sqlite").path)) {
            try store.backup(to: directory.appendingPathComponent("./console.sqlite").path, replacing: true)
        }
        #expect(try await store.auditEntryCount() == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("backup") }.isEmpty, "no temporary file left")
    }

    @Test("restore refuses while a console holds the lock, and replaces the database once none does")
    func restoreWaitsForConsoles() async throws {
        // setup: a backup with 3 entries, then 2 more in the live database, and a console's shared lock
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let backup = directory.appendingPathComponent("backup.sqlite").path
        do {
            let store = try ModerationStore(path: path)
            for index in 1...3 { try await store.appendAudit(entry(index)) }
            _ = try store.backup(to: backup)
            for index in 4...5 { try await store.appendAudit(entry(index)) }
        }
        // act and check: refused while either console holds it, nothing changed
        do {
            let another = try DatabaseLock.shared(databasePath: path)
            do {
                let console = try DatabaseLock.shared(databasePath: path)
                #expect(throws: DatabaseLockError(reason: .consoleRunning, path: path + ".lock")) {
                    try ModerationStore.restore(from: backup, to: path, auditKey: nil)
                }
                withExtendedLifetime(console) {}
            }
            #expect(throws: DatabaseLockError(reason: .consoleRunning, path: path + ".lock")) {
                try ModerationStore.restore(from: backup, to: path, auditKey: nil)
            }
            withExtendedLifetime(another) {}
        }
        #expect(try await ModerationStore(path: path).auditEntryCount() == 5)
        // A console starting during a restore is told so (the restore holds the lock exclusively).
        do {
            let restoring = try DatabaseLock.exclusive(databasePath: path)
            #expect(throws: DatabaseLockError(reason: .restoreUnderWay, path: path + ".lock")) { try DatabaseLock.shared(databasePath: path) }
            withExtendedLifetime(restoring) {}
        }
        _ = try ModerationStore.restore(from: backup, to: path, auditKey: nil)
        #expect(try await ModerationStore(path: path).auditEntryCount() == 3)
    }

    @Test("restore puts the backup in place of the database")
    func restoreReplaces() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let backup = directory.appendingPathComponent("backup.sqlite").path
        do {
            let store = try ModerationStore(path: path)
            for index in 1...3 { try await store.appendAudit(entry(index)) }
            _ = try store.backup(to: backup)
            for index in 4...5 { try await store.appendAudit(entry(index)) }
        }
        let head = try #require(try await ModerationStore(path: backup).auditEntries(limit: 1).first?.hash)

        let check = try ModerationStore.restore(from: backup, to: path, auditKey: nil)

        #expect(check.entries == 3)
        #expect(check.head == head)
        // A console opening it now sees the backup, not the old file's last writes.
        #expect(try await ModerationStore(path: path).verifyAuditChain() == .intact(entries: 3, head: head))
        #expect(try DatabaseLock.shared(databasePath: path).path == path + ".lock")
        // The database replaced is kept whole beside it, its last writes included.
        #expect(try await ModerationStore(path: path + ".before-restore").auditEntryCount() == 5)
    }

    @Test("restore marks the decisions the backup holds unfinished (the console may have sent them since), and only those")
    func restoreMarksUnfinishedDecisions() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let backup = directory.appendingPathComponent("backup.sqlite").path
        let decision = { (key: String) in
            ModerationAction(
                idempotencyKey: key, actorId: 2, actorUsername: "staff", targetKind: .library, targetKey: "lib-\(key)", statusSeen: .pending,
                statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "test", now: Date())
        }
        let (waiting, done): (Int64, Int64)
        do {
            let store = try ModerationStore(path: path)
            waiting = try #require(try await store.record(decision("waiting")).action.id)
            done = try #require(try await store.record(decision("done")).action.id)
            _ = try #require(try await store.claim(done, owner: "runner", leaseUntil: Date().addingTimeInterval(10), now: Date()))
            try await store.finish(
                done, owner: "runner", state: .applied, message: "Approved.", backendStatus: 200, audit: AuditLogFile.entry(1, name: "done", at: Date()),
                notifications: [], now: Date())
            _ = try store.backup(to: backup)
        }

        _ = try ModerationStore.restore(from: backup, to: path, auditKey: nil)

        let restored = try ModerationStore(path: path)
        #expect(try await restored.action(id: waiting)?.restoredAt != nil)
        #expect(try await restored.action(id: done)?.restoredAt == nil)
    }

    @Test("restore refuses a backup whose audit chain is broken, or that is not a console database, and leaves the database alone")
    func restoreChecksFirst() async throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let backup = directory.appendingPathComponent("backup.sqlite").path
        let store = try ModerationStore(path: path)
        for index in 1...3 { try await store.appendAudit(entry(index)) }
        _ = try store.backup(to: backup)
        try await store.appendAudit(entry(4))
        let tamperer = try DatabaseQueue(path: backup)
        try await tamperer.write { db in
            try db.execute(sql: "DROP TRIGGER auditEntry_noUpdate")
            try db.execute(sql: "UPDATE auditEntry SET reason = 'rewritten' WHERE id = 2")
        }
        try tamperer.close()
        #expect(throws: DatabaseCopyError.chainBroken(backup, entryID: 2, reason: "its contents do not match its hash (the entry was changed)")) {
            try ModerationStore.restore(from: backup, to: path, auditKey: nil)
        }
        let notOurs = directory.appendingPathComponent("other.sqlite").path
        try await DatabaseQueue(path: notOurs).write { try $0.execute(sql: "CREATE TABLE t (x)") }
        #expect(throws: DatabaseCopyError.notConsoleDatabase(notOurs)) {
            try ModerationStore.restore(from: notOurs, to: path, auditKey: nil)
        }
        let newer = directory.appendingPathComponent("newer.sqlite").path
        _ = try store.backup(to: newer)
        try await DatabaseQueue(path: newer).write { try $0.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-from-the-future')") }
        #expect(throws: DatabaseCopyError.unknownMigrations(newer, ["v99-from-the-future"])) {
            try ModerationStore.restore(from: newer, to: path, auditKey: nil)
        }
        #expect(try await store.auditEntryCount() == 4)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }
}
