import GRDB

/// The change record open pages follow: triggers on the tables that say how an item stands
/// (its mirrored status, decisions, claims) add a row in the same transaction as the change,
/// whichever process or code path made it, so every console process sees every change.
enum LiveMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v32-live-changes") { db in
            try db.execute(
                sql: """
                    CREATE TABLE liveChange (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        recordedAt DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now')),
                        targetKind TEXT NOT NULL,             -- library | report | photo
                        targetKey TEXT NOT NULL,              -- slug for libraries, id for reports and photos
                        cause TEXT NOT NULL                   -- submitted | status | decision | claim
                    );
                    CREATE INDEX liveChange_recordedAt ON liveChange(recordedAt);
                    """)
            for (table, kind, key, waiting) in [
                ("mirrorLibrary", "library", "NEW.slug", "pending"), ("mirrorReport", "report", "CAST(NEW.id AS TEXT)", "open"),
                ("mirrorPhoto", "photo", "CAST(NEW.id AS TEXT)", "pending"),
            ] {
                // An upsert of a row already mirrored fires UPDATE triggers only: INSERT means first seen.
                try db.execute(
                    sql: """
                        CREATE TRIGGER \(table)_liveSubmitted AFTER INSERT ON \(table) WHEN NEW.status = '\(waiting)'
                        BEGIN INSERT INTO liveChange (targetKind, targetKey, cause) VALUES ('\(kind)', \(key), 'submitted'); END;
                        CREATE TRIGGER \(table)_liveStatus AFTER UPDATE OF status, goneAt ON \(table)
                        WHEN OLD.status IS NOT NEW.status OR OLD.goneAt IS NOT NEW.goneAt
                        BEGIN INSERT INTO liveChange (targetKind, targetKey, cause) VALUES ('\(kind)', \(key), 'status'); END;
                        """)
            }
            for (table, cause) in [("action", "decision"), ("itemClaim", "claim")] {
                try db.execute(
                    sql: """
                        CREATE TRIGGER \(table)_liveInsert AFTER INSERT ON \(table)
                        BEGIN INSERT INTO liveChange (targetKind, targetKey, cause) VALUES (NEW.targetKind, NEW.targetKey, '\(cause)'); END;
                        CREATE TRIGGER \(table)_liveState AFTER UPDATE OF state ON \(table) WHEN OLD.state IS NOT NEW.state
                        BEGIN INSERT INTO liveChange (targetKind, targetKey, cause) VALUES (NEW.targetKind, NEW.targetKey, '\(cause)'); END;
                        """)
            }
        }
        // What an open page is told of an item starts from its latest decision: found by
        // index, not by reading every decision ever recorded.
        migrator.registerMigration("v33-live-latest-decision") { db in
            try db.execute(sql: "CREATE INDEX action_target_latest ON action(targetKind, targetKey, id)")
        }
    }
}
