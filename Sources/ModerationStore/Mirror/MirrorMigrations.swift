import GRDB

/// The mirror's tables, appended to the store's migrator. Never edit a landed migration.
enum MirrorMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-mirror") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mirrorLibrary (
                        id INTEGER PRIMARY KEY NOT NULL,       -- the backend's id
                        slug TEXT NOT NULL,
                        name TEXT NOT NULL,
                        normalizedName TEXT NOT NULL,
                        description TEXT NOT NULL,
                        address TEXT NOT NULL,
                        city TEXT NOT NULL,
                        country TEXT NOT NULL,
                        postalCode TEXT NOT NULL,
                        lat DOUBLE NOT NULL,
                        lng DOUBLE NOT NULL,
                        photoUrl TEXT NOT NULL,
                        thumbnailUrl TEXT NOT NULL,
                        status TEXT NOT NULL,                  -- pending | approved | rejected
                        rejectionReason TEXT NOT NULL,
                        submitterId INTEGER,
                        submitterUsername TEXT,
                        createdAt DATETIME NOT NULL,
                        lastConfirmedAt DATETIME NOT NULL,
                        goneAt DATETIME                        -- set only after a detail read answered 404
                    );
                    -- The queue pages: one status, newest first.
                    CREATE INDEX mirrorLibrary_status_createdAt ON mirrorLibrary(status, createdAt, id);
                    CREATE INDEX mirrorLibrary_slug ON mirrorLibrary(slug);
                    -- Duplicates: the same normalised name in the same city, or a bounding box around a point.
                    CREATE INDEX mirrorLibrary_city_name ON mirrorLibrary(city, normalizedName);
                    CREATE INDEX mirrorLibrary_position ON mirrorLibrary(lat, lng);
                    CREATE INDEX mirrorLibrary_lastConfirmedAt ON mirrorLibrary(lastConfirmedAt);
                    CREATE TABLE mirrorReport (
                        id INTEGER PRIMARY KEY NOT NULL,
                        libraryId INTEGER NOT NULL,
                        librarySlug TEXT NOT NULL,
                        libraryName TEXT NOT NULL,
                        libraryAddress TEXT NOT NULL,
                        libraryCity TEXT NOT NULL,
                        libraryCountry TEXT NOT NULL,
                        libraryStatus TEXT NOT NULL,
                        reporterId INTEGER,
                        reporterUsername TEXT,
                        reason TEXT NOT NULL,
                        details TEXT NOT NULL,
                        photoUrl TEXT NOT NULL,
                        status TEXT NOT NULL,                  -- open | resolved | dismissed
                        createdAt DATETIME NOT NULL,
                        lastConfirmedAt DATETIME NOT NULL,
                        missedPasses INTEGER NOT NULL DEFAULT 0,
                        goneAt DATETIME
                    );
                    CREATE INDEX mirrorReport_status_createdAt ON mirrorReport(status, createdAt, id);
                    CREATE INDEX mirrorReport_libraryId ON mirrorReport(libraryId);
                    CREATE TABLE mirrorPhoto (
                        id INTEGER PRIMARY KEY NOT NULL,
                        libraryId INTEGER NOT NULL,
                        librarySlug TEXT NOT NULL,
                        libraryName TEXT NOT NULL,
                        libraryCity TEXT NOT NULL,
                        libraryCountry TEXT NOT NULL,
                        libraryStatus TEXT NOT NULL,
                        submitterId INTEGER,
                        submitterUsername TEXT,
                        caption TEXT NOT NULL,
                        photoUrl TEXT NOT NULL,
                        thumbnailUrl TEXT NOT NULL,
                        status TEXT NOT NULL,                  -- pending | approved | rejected
                        createdAt DATETIME NOT NULL,
                        lastConfirmedAt DATETIME NOT NULL,
                        missedPasses INTEGER NOT NULL DEFAULT 0,
                        goneAt DATETIME
                    );
                    CREATE INDEX mirrorPhoto_status_createdAt ON mirrorPhoto(status, createdAt, id);
                    CREATE INDEX mirrorPhoto_libraryId ON mirrorPhoto(libraryId);
                    CREATE TABLE mirrorSummary (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                        pendingLibraries INTEGER NOT NULL,
                        openReports INTEGER NOT NULL,
                        pendingPhotos INTEGER NOT NULL,
                        totalPending INTEGER NOT NULL,
                        totalLibraries INTEGER NOT NULL,
                        totalUsers INTEGER NOT NULL,
                        lastConfirmedAt DATETIME NOT NULL
                    );
                    CREATE TABLE mirrorStatistics (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                        json BLOB NOT NULL,
                        lastConfirmedAt DATETIME NOT NULL
                    );
                    CREATE TABLE mirrorScopeState (
                        scope TEXT PRIMARY KEY NOT NULL,       -- the backend's rate-limit scope name
                        windowIndex INTEGER NOT NULL,
                        readsSpent INTEGER NOT NULL,
                        decisionReadsSpent INTEGER NOT NULL,
                        pausedUntil DATETIME,
                        passNextPage INTEGER NOT NULL,
                        passStartedAt DATETIME,
                        lastCompletePassStartedAt DATETIME,
                        lastPassCompletedAt DATETIME
                    );
                    """)
        }
        // Pages read only the mirror: the library list filters by `source`, and the library's
        // page shows every field the backend sends, so the whole record is kept as its JSON.
        migrator.registerMigration("v8-mirror-library-record") { db in
            try db.execute(
                sql: """
                    ALTER TABLE mirrorLibrary ADD COLUMN source TEXT NOT NULL DEFAULT '';
                    ALTER TABLE mirrorLibrary ADD COLUMN record BLOB;           -- the backend's JSON of the library
                    """)
        }
        // Pages say since when the backend has not answered the mirror's reads.
        migrator.registerMigration("v9-mirror-health") { db in
            try db.execute(
                sql: """
                    CREATE TABLE mirrorHealth (
                        id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
                        lastAnsweredAt DATETIME,
                        unansweredSince DATETIME
                    );
                    """)
        }
        // Pages count and list only rows not gone. Through the v7 indexes each counted row was
        // read for its goneAt (6 000 pending of 50 000 libraries: ~20 ms a queue page) and "all"
        // scanned and sorted the table; indexes of present rows answer both from the index alone.
        migrator.registerMigration("v10-mirror-present-row-indexes") { db in
            try db.execute(
                sql: """
                    CREATE INDEX mirrorLibrary_present_status_createdAt ON mirrorLibrary(status, createdAt, id) WHERE goneAt IS NULL;
                    CREATE INDEX mirrorLibrary_present_createdAt ON mirrorLibrary(createdAt, id) WHERE goneAt IS NULL;
                    CREATE INDEX mirrorReport_present_status_createdAt ON mirrorReport(status, createdAt, id) WHERE goneAt IS NULL;
                    CREATE INDEX mirrorReport_present_createdAt ON mirrorReport(createdAt, id) WHERE goneAt IS NULL;
                    CREATE INDEX mirrorPhoto_present_status_createdAt ON mirrorPhoto(status, createdAt, id) WHERE goneAt IS NULL;
                    CREATE INDEX mirrorPhoto_present_createdAt ON mirrorPhoto(createdAt, id) WHERE goneAt IS NULL;
                    """)
        }
    }
}
