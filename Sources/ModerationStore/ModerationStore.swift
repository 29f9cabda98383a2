import Foundation
import GRDB

/// The console's own durable records in one SQLite file (WAL): sessions and sign-in
/// attempts now; actions, audit entries and the outbox as they land.
public struct ModerationStore: Sendable {
    let writer: any DatabaseWriter

    /// Opens the database at `path` (one `DatabasePool` per file) and migrates it.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try ModerationStoreMigrations.migrator.migrate(pool)
        self.writer = pool
    }
}

/// The console's schema. Append new migrations; never edit one that has landed.
enum ModerationStoreMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-session") { db in
            try db.execute(sql: """
                CREATE TABLE session (
                    id TEXT PRIMARY KEY NOT NULL,          -- SHA-256 of the cookie value, never the value
                    staffId INTEGER NOT NULL,
                    username TEXT NOT NULL,
                    email TEXT NOT NULL,
                    csrfToken TEXT NOT NULL,
                    sealedAccessToken BLOB NOT NULL,       -- AES-GCM
                    sealedRefreshToken BLOB NOT NULL,
                    clientAddress TEXT NOT NULL,
                    userAgent TEXT NOT NULL,
                    createdAt DATETIME NOT NULL,
                    lastSeenAt DATETIME NOT NULL,
                    expiresAt DATETIME NOT NULL,
                    flash TEXT
                );
                CREATE INDEX session_staffId ON session(staffId);
                CREATE TABLE signInAttempt (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    login TEXT NOT NULL,                  -- lower-cased username or e-mail
                    clientAddress TEXT NOT NULL,
                    attemptedAt DATETIME NOT NULL,
                    succeeded BOOLEAN NOT NULL
                );
                CREATE INDEX signInAttempt_login ON signInAttempt(login, clientAddress, attemptedAt);
                """)
        }
        return migrator
    }
}
