import GRDB

/// The sandbox's schema. Append new migrations; never edit one that has landed.
enum SandboxMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-sandbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE user (
                        id INTEGER PRIMARY KEY,
                        username TEXT NOT NULL UNIQUE,
                        email TEXT NOT NULL UNIQUE,
                        passwordSalt TEXT NOT NULL,
                        passwordHash TEXT NOT NULL,
                        isStaff BOOLEAN NOT NULL,
                        isSocialOnly BOOLEAN NOT NULL
                    );
                    CREATE TABLE library (
                        id INTEGER PRIMARY KEY,
                        slug TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        description TEXT NOT NULL,
                        photoUrl TEXT NOT NULL,
                        thumbnailUrl TEXT NOT NULL,
                        lat DOUBLE NOT NULL,
                        lng DOUBLE NOT NULL,
                        address TEXT NOT NULL,
                        city TEXT NOT NULL,
                        country TEXT NOT NULL,
                        postalCode TEXT NOT NULL,
                        wheelchairAccessible TEXT NOT NULL,
                        capacity INTEGER,
                        isIndoor BOOLEAN,
                        isLit BOOLEAN,
                        website TEXT NOT NULL,
                        contact TEXT NOT NULL,
                        source TEXT NOT NULL,
                        operator TEXT NOT NULL,
                        brand TEXT NOT NULL,
                        createdAt DATETIME NOT NULL,
                        status TEXT NOT NULL,
                        rejectionReason TEXT NOT NULL,
                        createdById INTEGER REFERENCES user(id)
                    );
                    CREATE INDEX library_status_createdAt ON library(status, createdAt);
                    CREATE TABLE report (
                        id INTEGER PRIMARY KEY,
                        libraryId INTEGER NOT NULL REFERENCES library(id),
                        createdById INTEGER REFERENCES user(id),
                        reason TEXT NOT NULL,
                        details TEXT NOT NULL,
                        photoUrl TEXT NOT NULL,
                        status TEXT NOT NULL,
                        createdAt DATETIME NOT NULL
                    );
                    CREATE TABLE photo (
                        id INTEGER PRIMARY KEY,
                        libraryId INTEGER NOT NULL REFERENCES library(id),
                        createdById INTEGER REFERENCES user(id),
                        caption TEXT NOT NULL,
                        photoUrl TEXT NOT NULL,
                        thumbnailUrl TEXT NOT NULL,
                        status TEXT NOT NULL,
                        createdAt DATETIME NOT NULL
                    );
                    """)
        }
        // Lists of every status are ordered newest first: without these, each page of 50 000
        // libraries sorted the whole table (about a second a page, so a mirror's first pass took hours).
        migrator.registerMigration("v2-sandbox-list-order") { db in
            try db.execute(
                sql: """
                    CREATE INDEX library_createdAt_id ON library(createdAt, id);
                    CREATE INDEX report_createdAt_id ON report(createdAt, id);
                    CREATE INDEX report_status_createdAt_id ON report(status, createdAt, id);
                    CREATE INDEX photo_createdAt_id ON photo(createdAt, id);
                    CREATE INDEX photo_status_createdAt_id ON photo(status, createdAt, id);
                    """)
        }
        return migrator
    }
}
