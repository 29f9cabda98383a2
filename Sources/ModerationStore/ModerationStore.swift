import GRDB

/// The console's own durable records (sessions, actions, audit, outbox) in one SQLite file.
public struct ModerationStore: Sendable {
    public let writer: any DatabaseWriter

    /// Opens the database at `path` (a `DatabasePool`, WAL mode) and migrates it.
    public init(path: String) throws {
        let pool = try DatabasePool(path: path)
        try ModerationStore.migrator.migrate(pool)
        self.writer = pool
    }

    static var migrator: DatabaseMigrator {
        DatabaseMigrator()
    }
}
