import GRDB

/// The folded search index over mirrored libraries.
enum SearchMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        // A trigram index over a folded copy of name, address and city: a substring search of
        // three characters or more reads the index, not every row. The copy is a column, made in
        // Swift when the row is written; triggers keep the index in step in the same transaction.
        migrator.registerMigration("v37-library-search-index") { db in
            try db.execute(sql: "ALTER TABLE mirrorLibrary ADD COLUMN searchText TEXT NOT NULL DEFAULT ''")
            let update = try db.makeStatement(sql: "UPDATE mirrorLibrary SET searchText = ? WHERE id = ?")
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, address, city FROM mirrorLibrary")
            var folded: [(Int, String)] = []
            while let row = try rows.next() {
                folded.append((row["id"], SearchFolding.libraryText(name: row["name"], address: row["address"], city: row["city"])))
            }
            for (id, text) in folded { try update.execute(arguments: [text, id]) }
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE mirrorLibrarySearch USING fts5(
                        searchText, tokenize = 'trigram', content = 'mirrorLibrary', content_rowid = 'id');
                    INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch) VALUES ('rebuild');
                    CREATE TRIGGER mirrorLibrarySearch_insert AFTER INSERT ON mirrorLibrary BEGIN
                        INSERT INTO mirrorLibrarySearch(rowid, searchText) VALUES (new.id, new.searchText);
                    END;
                    CREATE TRIGGER mirrorLibrarySearch_delete AFTER DELETE ON mirrorLibrary BEGIN
                        INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch, rowid, searchText) VALUES ('delete', old.id, old.searchText);
                    END;
                    CREATE TRIGGER mirrorLibrarySearch_update AFTER UPDATE OF searchText ON mirrorLibrary
                    WHEN old.searchText IS NOT new.searchText BEGIN
                        INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch, rowid, searchText) VALUES ('delete', old.id, old.searchText);
                        INSERT INTO mirrorLibrarySearch(rowid, searchText) VALUES (new.id, new.searchText);
                    END;
                    """)
        }
    }

    /// The index also holds each library's status and presence (`LibrarySearchIndex.stateCode`;
    /// the codes are written out here, as a migration must not change when the enum does),
    /// so a search in one status is answered by the index alone: counting the pending libraries
    /// that match "paris" reads no row of the table. Before, SQLite walked every pending row of
    /// the status index and looked each up among the matches (1.6 ms at 50 000 libraries).
    static func registerStatusInIndex(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v43-library-search-status") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER mirrorLibrarySearch_insert;
                    DROP TRIGGER mirrorLibrarySearch_delete;
                    DROP TRIGGER mirrorLibrarySearch_update;
                    DROP TABLE mirrorLibrarySearch;
                    ALTER TABLE mirrorLibrary ADD COLUMN searchState TEXT GENERATED ALWAYS AS (
                        CASE WHEN goneAt IS NOT NULL THEN '=g=' WHEN status = 'pending' THEN '=p='
                            WHEN status = 'approved' THEN '=a=' WHEN status = 'rejected' THEN '=r=' ELSE '' END) VIRTUAL;
                    CREATE VIRTUAL TABLE mirrorLibrarySearch USING fts5(
                        searchText, searchState, tokenize = 'trigram', content = 'mirrorLibrary', content_rowid = 'id');
                    INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch) VALUES ('rebuild');
                    CREATE TRIGGER mirrorLibrarySearch_insert AFTER INSERT ON mirrorLibrary BEGIN
                        INSERT INTO mirrorLibrarySearch(rowid, searchText, searchState) VALUES (new.id, new.searchText, new.searchState);
                    END;
                    CREATE TRIGGER mirrorLibrarySearch_delete AFTER DELETE ON mirrorLibrary BEGIN
                        INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch, rowid, searchText, searchState)
                        VALUES ('delete', old.id, old.searchText, old.searchState);
                    END;
                    CREATE TRIGGER mirrorLibrarySearch_update AFTER UPDATE OF searchText, status, goneAt ON mirrorLibrary
                    WHEN old.searchText IS NOT new.searchText OR old.searchState IS NOT new.searchState BEGIN
                        INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch, rowid, searchText, searchState)
                        VALUES ('delete', old.id, old.searchText, old.searchState);
                        INSERT INTO mirrorLibrarySearch(rowid, searchText, searchState) VALUES (new.id, new.searchText, new.searchState);
                    END;
                    """)
        }
    }

    /// A search of one or two characters cannot use the trigram index and scans instead: the
    /// folded text rides in the two indexes of present libraries (by status, and by time), so
    /// the scan reads index entries instead of every whole row with its kept backend record
    /// (at 50 000 libraries, "pa" among the pending ones: 7.7 ms to 0.7 ms).
    static func registerFoldedTextInListIndexes(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v44-folded-text-in-list-indexes") { db in
            try db.execute(
                sql: """
                    DROP INDEX mirrorLibrary_present_status_createdAt;
                    DROP INDEX mirrorLibrary_present_createdAt;
                    CREATE INDEX mirrorLibrary_present_status_createdAt
                        ON mirrorLibrary(status, createdAt, id, searchText) WHERE goneAt IS NULL;
                    CREATE INDEX mirrorLibrary_present_createdAt ON mirrorLibrary(createdAt, id, searchText) WHERE goneAt IS NULL;
                    """)
        }
    }

    /// The folded copy with its white space collapsed (`SearchFolding.spaced`), as queries now
    /// are: only the rows whose copy changes are written, and the index triggers follow them.
    static func registerCollapsedSpaces(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v49-search-text-spaces-collapsed") { db in
            let update = try db.makeStatement(sql: "UPDATE mirrorLibrary SET searchText = ? WHERE id = ?")
            let rows = try Row.fetchCursor(db, sql: "SELECT id, name, address, city, searchText FROM mirrorLibrary")
            var changed: [(Int, String)] = []
            while let row = try rows.next() {
                let text = SearchFolding.libraryText(name: row["name"], address: row["address"], city: row["city"])
                if text != row["searchText"] as String { changed.append((row["id"], text)) }
            }
            for (id, text) in changed { try update.execute(arguments: [text, id]) }
        }
    }
}
