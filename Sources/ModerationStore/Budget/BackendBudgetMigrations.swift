import GRDB

/// The backend budget shared by every console process on one database: reads and writes spent
/// per rate-limit scope, share and window; pauses after a 429; and leases on work only one
/// process may do at a time (the mirror's passes).
enum BackendBudgetMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v22-seams-budget-spending") { db in
            try db.execute(
                sql: """
                    CREATE TABLE backendBudget (
                        scope TEXT NOT NULL,                  -- the backend's rate-limit scope, e.g. api-library-moderation-list
                        pool TEXT NOT NULL,                   -- the share: mirror | watcher | reads | write | sign-in | refresh
                        windowIndex INTEGER NOT NULL,         -- floor(epoch seconds / window), as the backend counts
                        spent INTEGER NOT NULL DEFAULT 0,     -- HTTP attempts granted, retries included
                        reserveSpent INTEGER NOT NULL DEFAULT 0, -- of spent, those from the share kept for decision checks
                        PRIMARY KEY (scope, pool, windowIndex)
                    ) WITHOUT ROWID;
                    CREATE TABLE backendPause (
                        scope TEXT PRIMARY KEY NOT NULL,
                        pausedUntil DOUBLE NOT NULL           -- epoch seconds: the backend's retry_after, for every process
                    ) WITHOUT ROWID;
                    CREATE TABLE workLease (
                        name TEXT PRIMARY KEY NOT NULL,       -- e.g. mirror
                        owner TEXT NOT NULL,
                        leaseUntil DOUBLE NOT NULL            -- epoch seconds
                    ) WITHOUT ROWID;
                    """)
        }
    }
}
