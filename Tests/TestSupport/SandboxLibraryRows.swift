import Foundation
import GRDB

/// Plants libraries straight into a sandbox database, for tests that need shapes the seed
/// does not make (odd slugs, long queues, planted duplicates): each new row copies a pending
/// library and changes only the columns given.
public enum SandboxLibraryRows {
    /// Inserts one copied row per element of `changes`, in one transaction.
    public static func insert(_ changes: [[String: any DatabaseValueConvertible]], intoSandboxAt path: String) async throws {
        let rows = changes.map { $0.mapValues(\.databaseValue) }
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            guard let template = try Row.fetchOne(db, sql: "SELECT * FROM library WHERE status = 'pending' LIMIT 1") else {
                throw DatabaseError(message: "the sandbox has no pending library to copy")
            }
            let columns = Array(template.columnNames)
            let insert = "INSERT INTO library (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
            for change in rows {
                var values = Dictionary(uniqueKeysWithValues: zip(columns, template.databaseValues))
                values.merge(change) { _, new in new }
                try db.execute(sql: insert, arguments: StatementArguments(columns.map { values[$0] }))
            }
        }
        try database.close()
    }
}
