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

extension ConcernMigrations {
    /// Forgets the stored assessment of every waiting library a mirror change may alter the
    /// reasons of, in the transaction that makes the change: those within the farthest distance
    /// staff may set (500 m) of the changed library's old or new place, and the submitter's
    /// others. Without it a row showed the reasons of a minute ago — before a duplicate's original
    /// reached the mirror, or before the submitter's last rejection — until the next refresh.
    static func registerStaleAssessmentTriggers(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v41-stale-assessments") { db in
            try db.execute(sql: staleAssessmentTriggers(affected: affectedBeforeV47))
        }
    }

    /// The same triggers, with neighbours looked for across the 180th meridian too: a library at
    /// 179.9999° W changes the reasons of one at 179.9999° E, 22 m away at Fiji's latitude.
    static func registerAntimeridianTriggers(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v47-stale-assessments-across-the-meridian") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER mirrorLibrary_staleAssessmentInsert;
                    DROP TRIGGER mirrorLibrary_staleAssessmentUpdate;
                    DROP TRIGGER mirrorLibrary_staleAssessmentDelete;
                    """)
            try db.execute(sql: staleAssessmentTriggers(affected: affected))
        }
    }

    /// Every mirror change that can alter a library's reasons is logged under a counter
    /// (`concernEvidenceClock`): where it was, before and after, and whose. A refresh pass reads
    /// evidence, works reasons out, then stores them; a change landing in between used to delete
    /// the old assessment and then see the pass store one worked out from the evidence before it
    /// ("first submission" beside a page saying "4 of 4 rejected", with one-click Approve) until
    /// the next pass. The pass now gives the counter it read before the evidence, and a library
    /// near a change logged since, or of its submitter, is left for the next pass. One row per
    /// change, not one per library it touches: a prolific submitter's change touches hundreds.
    static func registerEvidenceChanges(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v48-concern-evidence-changes") { db in
            let columns = ["lat", "lng", "status", "name", "normalizedName", "submitterId", "goneAt", "createdAt", "rejectionReason"]
            let changed = columns.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
            func log(_ rows: [String]) -> String {
                "UPDATE concernEvidenceClock SET tick = tick + 1;\n"
                    + rows.map { row in
                        """
                        INSERT INTO concernEvidenceChange (tick, lat, lng, submitterId, changedAt)
                            SELECT tick, \(row).lat, \(row).lng, \(row).submitterId, strftime('%Y-%m-%d %H:%M:%f', 'now') FROM concernEvidenceClock;
                        """
                    }.joined(separator: "\n")
            }
            try db.execute(
                sql: """
                    CREATE TABLE concernEvidenceClock (id INTEGER PRIMARY KEY CHECK (id = 1), tick INTEGER NOT NULL);
                    INSERT INTO concernEvidenceClock (id, tick) VALUES (1, 0);
                    CREATE TABLE concernEvidenceChange (
                        tick INTEGER NOT NULL, lat DOUBLE NOT NULL, lng DOUBLE NOT NULL, submitterId INTEGER, changedAt DATETIME NOT NULL);
                    CREATE INDEX concernEvidenceChange_tick ON concernEvidenceChange(tick);
                    CREATE INDEX concernEvidenceChange_changedAt ON concernEvidenceChange(changedAt);
                    CREATE TRIGGER mirrorLibrary_evidenceChangeInsert AFTER INSERT ON mirrorLibrary
                    BEGIN
                        \(log(["NEW"]))
                    END;
                    CREATE TRIGGER mirrorLibrary_evidenceChangeUpdate AFTER UPDATE OF \(columns.joined(separator: ", ")) ON mirrorLibrary
                    WHEN \(changed)
                    BEGIN
                        \(log(["OLD", "NEW"]))
                    END;
                    CREATE TRIGGER mirrorLibrary_evidenceChangeDelete AFTER DELETE ON mirrorLibrary
                    BEGIN
                        \(log(["OLD"]))
                    END;
                    """)
        }
    }

    /// The three triggers that forget stale assessments; `affected` answers the ids a row
    /// (`NEW` or `OLD`) may change the reasons of.
    private static func staleAssessmentTriggers(affected: (String) -> String) -> String {
        let columns = ["lat", "lng", "status", "name", "normalizedName", "submitterId", "goneAt", "createdAt", "rejectionReason"]
        let evidence = columns.joined(separator: ", ")
        let changed = columns.map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
        return """
            CREATE TRIGGER mirrorLibrary_staleAssessmentInsert AFTER INSERT ON mirrorLibrary
            WHEN EXISTS (SELECT 1 FROM libraryAssessment)
            BEGIN
                DELETE FROM libraryAssessment WHERE libraryId IN (\(affected("NEW")));
            END;
            CREATE TRIGGER mirrorLibrary_staleAssessmentUpdate AFTER UPDATE OF \(evidence) ON mirrorLibrary
            WHEN (\(changed)) AND EXISTS (SELECT 1 FROM libraryAssessment)
            BEGIN
                DELETE FROM libraryAssessment WHERE libraryId IN (\(affected("OLD")) UNION \(affected("NEW")));
            END;
            CREATE TRIGGER mirrorLibrary_staleAssessmentDelete AFTER DELETE ON mirrorLibrary
            WHEN EXISTS (SELECT 1 FROM libraryAssessment)
            BEGIN
                DELETE FROM libraryAssessment WHERE libraryId IN (\(affected("OLD")));
            END;
            """
    }

    /// The longitude half-width of the box around `row` holding 500 m: 0.005° of latitude's
    /// worth over the cosine of its latitude, stepped so no math functions are needed.
    private static func longitudeSpan(_ row: String) -> String {
        "CASE WHEN abs(\(row).lat) < 60 THEN 0.01 WHEN abs(\(row).lat) < 75 THEN 0.02 WHEN abs(\(row).lat) < 85 THEN 0.06 ELSE 360 END"
    }

    /// The waiting libraries whose reasons may look at the library `row` (`NEW` or `OLD`): within
    /// 500 m of it (a box a little larger, `longitudeSpan`, wrapping at the 180th meridian), or
    /// sent by its submitter. Only the latitude bounds use the position index; the longitude is
    /// checked on the few rows in that band.
    private static func affected(by row: String) -> String {
        """
        SELECT id FROM mirrorLibrary
            WHERE lat BETWEEN \(row).lat - 0.005 AND \(row).lat + 0.005
            AND (abs(lng - \(row).lng) <= (\(longitudeSpan(row))) OR abs(lng - \(row).lng) >= 360 - (\(longitudeSpan(row))))
        UNION SELECT id FROM mirrorLibrary
            WHERE submitterId = \(row).submitterId AND goneAt IS NULL AND status = 'pending'
        """
    }

    /// `affected(by:)` as `v41` wrote it, blind across the 180th meridian: kept so `v41` creates
    /// what it always created.
    private static func affectedBeforeV47(by row: String) -> String {
        """
        SELECT id FROM mirrorLibrary
                WHERE lat BETWEEN \(row).lat - 0.005 AND \(row).lat + 0.005
                AND lng BETWEEN \(row).lng - (\(longitudeSpan(row))) AND \(row).lng + (\(longitudeSpan(row)))
            UNION SELECT id FROM mirrorLibrary
                WHERE submitterId = \(row).submitterId AND goneAt IS NULL AND status = 'pending'
        """
    }
}
