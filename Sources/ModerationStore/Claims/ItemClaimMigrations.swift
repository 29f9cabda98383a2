import GRDB

/// The claims table, appended to the store's migrator. Never edit a landed migration.
enum ItemClaimMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13-item-claims") { db in
            // The partial unique index is what makes "exactly one wins" hold across processes:
            // two consoles on one file cannot both insert an active claim on one item.
            try db.execute(
                sql: """
                    CREATE TABLE itemClaim (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        targetKind TEXT NOT NULL,             -- library | report | photo
                        targetKey TEXT NOT NULL,              -- slug for libraries, id for reports and photos
                        holderId INTEGER NOT NULL,
                        holderUsername TEXT NOT NULL,
                        state TEXT NOT NULL,                  -- active | released | expired | decided | takenOver
                        claimedAt DATETIME NOT NULL,
                        expiresAt DATETIME NOT NULL,
                        endedAt DATETIME,
                        endedBy TEXT
                    );
                    CREATE UNIQUE INDEX itemClaim_oneActive ON itemClaim(targetKind, targetKey) WHERE state = 'active';
                    CREATE INDEX itemClaim_activeExpiry ON itemClaim(expiresAt) WHERE state = 'active';
                    """)
        }
    }
}
