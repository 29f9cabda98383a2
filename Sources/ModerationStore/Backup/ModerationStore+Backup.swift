import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#endif

/// What a check of a database copy found: SQLite's own integrity check, the schema's
/// migrations and the audit chain, each of which must pass before a copy is trusted.
public struct DatabaseCopyCheck: Sendable {
    /// The entries of the audit chain and its head, as `console audit verify` prints them.
    public let entries: Int
    public let head: String
    /// The id of the newest entry, nil when the log is empty.
    public let headID: Int64?
    /// Whether the chain is keyed (then it was checked with the key).
    public let keyed: Bool
}

public enum DatabaseCopyError: Error, Equatable, CustomStringConvertible {
    case exists(String)
    /// The copy would land on the database it copies.
    case ontoItself(String)
    case missing(String)
    case notIntact(String, problems: [String])
    case notConsoleDatabase(String)
    case unknownMigrations(String, [String])
    case chainBroken(String, entryID: Int64, reason: String)

    public var description: String {
        switch self {
        case .exists(let path): "\(path) already exists; choose another name, or give --force to replace it."
        case .ontoItself(let path): "\(path) is the database being copied; choose another name for the backup."
        case .missing(let path): "There is no file at \(path)."
        case .notIntact(let path, let problems):
            "\(path) fails SQLite's integrity check: \(problems.prefix(3).joined(separator: "; "))\(problems.count > 3 ? "; …" : "")"
        case .notConsoleDatabase(let path): "\(path) is not a console database (it has no migrations table)."
        case .unknownMigrations(let path, let names):
            "\(path) was written by a newer console (migrations this one does not know: \(names.joined(separator: ", "))); use that version."
        case .chainBroken(let path, let id, let reason): "The audit chain in \(path) is broken at entry \(id): \(reason)."
        }
    }
}

extension ModerationStore {
    /// Copies the database to `path` while it stays in use: SQLite's backup API reads one
    /// snapshot, so the copy is consistent whatever other connections write meanwhile. The
    /// copy is written to a temporary file beside `path`, checked (integrity, migrations, the
    /// audit chain with this store's key), made a single self-contained file, and only then
    /// renamed to `path`: there is never a half-written file under that name.
    public func backup(to path: String, replacing: Bool = false) throws -> DatabaseCopyCheck {
        let manager = FileManager.default
        if !replacing, manager.fileExists(atPath: path) { throw DatabaseCopyError.exists(path) }
        let target = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        if target == URL(fileURLWithPath: writer.path).standardizedFileURL.resolvingSymlinksInPath().path {
            throw DatabaseCopyError.ontoItself(path)
        }
        let temporary = Self.temporaryPath(beside: path, purpose: "backup")
        defer { Self.removeDatabaseFiles(at: temporary) }
        let check: DatabaseCopyCheck
        do {
            // Sessions and sealed tokens are in it: created readable by its owner alone, from the first byte.
            let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary]) }
            close(descriptor)
            let copy = try DatabaseQueue(path: temporary)
            try writer.backup(to: copy)
            check = try Self.checkCopy(copy, named: path, key: auditKey)
            try copy.close()
        }
        // Sessions and sealed tokens are in it: readable by its owner alone, like the key files.
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
        if replacing {
            guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        } else {
            // A hard link never replaces: a file that appeared meanwhile under `path` is kept.
            guard link(temporary, path) == 0 else {
                if errno == EEXIST { throw DatabaseCopyError.exists(path) }
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        }
        return check
    }

    /// Checks the copy at `source` (integrity, migrations this version knows, the audit chain
    /// with `auditKey`), then replaces the database at `databasePath` with it in one rename.
    /// Refuses while any console holds the database's lock, and holds it exclusively
    /// throughout, so no console starts on a half-replaced file.
    public static func restore(from source: String, to databasePath: String, auditKey: AuditKey?) throws -> DatabaseCopyCheck {
        let manager = FileManager.default
        guard manager.fileExists(atPath: source) else { throw DatabaseCopyError.missing(source) }
        let lock = try DatabaseLock.exclusive(databasePath: databasePath)
        let temporary = temporaryPath(beside: databasePath, purpose: "restore")
        defer { removeDatabaseFiles(at: temporary) }
        // Checked on a copy, so neither the backup file nor the database is touched until it passes.
        try manager.copyItem(atPath: source, toPath: temporary)
        DatabaseFileMode.narrow(temporary)
        let copy = try DatabaseQueue(path: temporary)
        let check = try checkCopy(copy, named: source, key: auditKey)
        // A decision the backup holds unfinished may have gone out after the backup was taken:
        // marked, so that finding it already applied is said as such, not blamed on a colleague.
        // It may also still be queued at Book Corners: in flight for the default bound (21 s + 90 s),
        // so nothing on its item is checked or sent before then (I2). A backup older than that
        // column gets the same from its migration.
        try copy.write { db in
            try db.execute(
                sql: "UPDATE action SET restoredAt = ? WHERE state NOT IN ('applied', 'conflict', 'failed', 'cancelled')", arguments: [Date()])
            if try db.columns(in: "action").contains(where: { $0.name == "inFlightUntil" }) {
                try db.execute(
                    sql: "UPDATE action SET inFlightUntil = ? WHERE state NOT IN ('applied', 'conflict', 'failed', 'cancelled')",
                    arguments: [Date().addingTimeInterval(111)])
            }
        }
        try holdRestoredOutboxMessages(in: copy, replacing: databasePath, now: Date())
        try copy.close()
        // The database replaced is kept whole beside it (`<database>.before-restore`): its
        // write-ahead log is first checkpointed into it, while the lock keeps every console out,
        // so no committed decision is lost and no old log is replayed into the new file.
        let keptAside = databasePath + ".before-restore"
        if manager.fileExists(atPath: databasePath) {
            removeDatabaseFiles(at: keptAside)
            do {
                let old = try DatabaseQueue(path: databasePath)
                try old.writeWithoutTransaction { db in _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                try old.close()
                for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: databasePath + suffix) {
                    try manager.removeItem(atPath: databasePath + suffix)
                }
            } catch {
                // A damaged database (the reason for many a restore) may refuse even a
                // checkpoint: its log then goes aside with it, whole, so nothing is lost.
                for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: databasePath + suffix) {
                    _ = rename(databasePath + suffix, keptAside + suffix)
                }
            }
            guard rename(databasePath, keptAside) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: keptAside])
            }
            DatabaseFileMode.narrow(keptAside)
        }
        guard rename(temporary, databasePath) == 0 else {
            // Put the old database back rather than leave none.
            _ = rename(keptAside, databasePath)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: databasePath])
        }
        DatabaseFileMode.narrow(databasePath)
        withExtendedLifetime(lock) {}
        return check
    }

    /// Integrity, known migrations, and the audit chain of the copy `copy` (named `path` in
    /// errors). A copy from an older console is migrated first, as a console opening it
    /// would; one from a newer console is refused. The copy leaves WAL mode: one file.
    static func checkCopy(_ copy: DatabaseQueue, named path: String, key: AuditKey?) throws -> DatabaseCopyCheck {
        try copy.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            let problems = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            guard problems == ["ok"] else { throw DatabaseCopyError.notIntact(path, problems: problems) }
            guard try db.tableExists("grdb_migrations") else { throw DatabaseCopyError.notConsoleDatabase(path) }
            let known = Set(ModerationStoreMigrations.migrator.migrations)
            let unknown = try ModerationStoreMigrations.migrator.appliedIdentifiers(db).subtracting(known).sorted()
            guard unknown.isEmpty else { throw DatabaseCopyError.unknownMigrations(path, unknown) }
        }
        try ModerationStoreMigrations.migrator.migrate(copy)
        return try copy.read { db in
            switch try verifyAuditChain(db, key: key) {
            case .broken(let id, let reason):
                throw DatabaseCopyError.chainBroken(path, entryID: id, reason: reason)
            case .intact(let entries, let head):
                let headID = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM auditEntry")
                return DatabaseCopyCheck(entries: entries, head: head, headID: headID, keyed: try keyedSince(db) != nil)
            }
        }
    }

    /// A hidden name in `path`'s directory, so the final rename stays on one file system.
    static func temporaryPath(beside path: String, purpose: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(purpose)-\(UUID().uuidString.prefix(8))").path
    }

    /// Removes a database file and its companions, if they are there.
    static func removeDatabaseFiles(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}
