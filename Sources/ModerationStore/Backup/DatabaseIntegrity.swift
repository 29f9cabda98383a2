import Foundation
import GRDB

/// SQLite's `quick_check` of a database file, over a connection of its own, so pages another
/// connection holds in its cache never hide what is on disk now.
public enum DatabaseIntegrity {
    /// What the check found wrong with the file at `path`; none when it is intact or not there
    /// yet. A file SQLite cannot read as a database at all is one problem, in SQLite's words.
    public static func problems(atPath path: String) async throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(2)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let found = try await queue.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            try queue.close()
            return found == ["ok"] ? [] : found
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            return [error.message ?? "\(error)"]
        }
    }
}

/// The console will not start on a damaged database: it would answer errors on every page
/// while writing into the file. The words say how to put the last backup back.
public struct DatabaseDamagedError: Error, CustomStringConvertible {
    public let path: String
    public let problems: [String]

    public init(path: String, problems: [String]) {
        self.path = path
        self.problems = problems
    }

    public var description: String {
        let found = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; …" : "")
        return "The database \(path) is damaged (SQLite's quick_check: \(found)). The console does not start on it, so as not to write "
            + "into it. Restore the last backup: stop every console using this database, run `console restore --database \(path) "
            + "--from BACKUP-FILE` (the damaged file is kept as \(path).before-restore), then start the console again."
    }
}
