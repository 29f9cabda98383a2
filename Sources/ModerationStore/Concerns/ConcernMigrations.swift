import GRDB

/// Indexes the reasons a library may need a look are read by.
enum ConcernMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        // A submitter's record and their submissions around one: by submitter, not a scan.
        migrator.registerMigration("v34-mirror-library-submitter") { db in
            try db.execute(sql: "CREATE INDEX mirrorLibrary_submitter ON mirrorLibrary(submitterId, createdAt)")
        }
    }
}

extension ConcernMigrations {
    /// The reasons of every waiting library as last worked out, for the queue's filter by reason.
    static func registerStoredConcerns(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v35-library-concerns") { db in
            try db.execute(
                sql: """
                    CREATE TABLE libraryConcern (
                        libraryId INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        strength TEXT NOT NULL,
                        PRIMARY KEY (libraryId, kind)
                    ) WITHOUT ROWID;
                    CREATE INDEX libraryConcern_kind ON libraryConcern(kind, libraryId);
                    CREATE INDEX libraryConcern_strength ON libraryConcern(strength, libraryId);
                    -- "a spot used before" per row: by submitter and place, not every library of a prolific submitter
                    CREATE INDEX mirrorLibrary_submitter_place ON mirrorLibrary(submitterId, lat, lng);
                    """)
        }
    }
}

extension ConcernMigrations {
    /// The reasons each decided library had when it left the queue: a decided row keeps its
    /// place in "needs a look first", and what each reason caught can be counted afterwards.
    static func registerDecidedConcerns(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v36-decided-library-concerns") { db in
            try db.execute(
                sql: """
                    CREATE TABLE decidedLibraryConcern (
                        libraryId INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        strength TEXT NOT NULL,
                        -- the library's status when its reasons were set aside: approved, rejected, or gone
                        outcome TEXT NOT NULL,
                        recordedAt DATETIME NOT NULL,
                        PRIMARY KEY (libraryId, kind)
                    ) WITHOUT ROWID;
                    CREATE INDEX decidedLibraryConcern_recorded ON decidedLibraryConcern(recordedAt);
                    """)
        }
    }
}

extension ConcernMigrations {
    /// A contributor's earlier photos and reports, beside a library or report: by account, not a scan.
    static func registerContributorIndexes(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v38-contributor-history") { db in
            try db.execute(
                sql: """
                    CREATE INDEX mirrorPhoto_submitter ON mirrorPhoto(submitterId, createdAt);
                    CREATE INDEX mirrorReport_reporter ON mirrorReport(reporterId, createdAt);
                    """)
        }
        // A submitter's counts (submitted, approved, rejected) from the index alone: at 50 000 mirrored,
        // reading each of a prolific submitter's 2 300 rows cost 11–15 ms per submitter, per page.
        migrator.registerMigration("v39-submitter-counts") { db in
            // Partial, as every index a count of present rows may pick must be (MirrorStoreTests).
            try db.execute(sql: "CREATE INDEX mirrorLibrary_submitter_status ON mirrorLibrary(submitterId, goneAt, status) WHERE goneAt IS NULL")
        }
    }
}

extension ConcernMigrations {
    /// Thresholds and suspect words staff set; and each waiting library's reasons stored whole
    /// (badge and sentence), with the fingerprint of the library they were worked out for, so a
    /// list shows them without working them out again per view.
    static func registerSettingsAndStoredRows(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v40-concern-settings") { db in
            try db.execute(
                sql: """
                    CREATE TABLE concernSetting (
                        name TEXT PRIMARY KEY NOT NULL,
                        value TEXT NOT NULL,
                        updatedAt DATETIME NOT NULL,
                        updatedBy TEXT NOT NULL
                    ) WITHOUT ROWID;
                    -- worked out again within a minute: rebuilt rather than altered, one row per reason
                    -- (a library may have two of a kind: round coordinates and a place used before)
                    DROP TABLE libraryConcern;
                    CREATE TABLE libraryConcern (
                        libraryId INTEGER NOT NULL,
                        position INTEGER NOT NULL,
                        kind TEXT NOT NULL,
                        strength TEXT NOT NULL,
                        badge TEXT NOT NULL,
                        sentence TEXT NOT NULL,
                        PRIMARY KEY (libraryId, position)
                    ) WITHOUT ROWID;
                    CREATE INDEX libraryConcern_kind ON libraryConcern(kind, libraryId);
                    CREATE INDEX libraryConcern_strength ON libraryConcern(strength, libraryId);
                    -- which waiting libraries the stored reasons are for, and for which version of each
                    CREATE TABLE libraryAssessment (
                        libraryId INTEGER PRIMARY KEY NOT NULL,
                        fingerprint TEXT NOT NULL,
                        assessedAt DATETIME NOT NULL
                    );
                    """)
        }
    }
}
