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
