import Foundation
import GRDB
import ModerationVocabulary
import Testing

@testable import ModerationStore

/// The libraries list's search: a folded copy of name, address and city, a trigram index for
/// three characters and more, a scan below that; the index kept in step with every write.
@Suite("Searching mirrored libraries")
struct LibrarySearchTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func library(_ id: Int, name: String, address: String = "", city: String = "Berlin") -> MirrorLibrary {
        MirrorLibrary(
            id: id, slug: "library-\(id)", name: name, description: "", address: address, city: city, country: "DE", postalCode: "10115",
            lat: 52.5, lng: 13.4, photoUrl: "", thumbnailUrl: "", status: .pending, rejectionReason: "", submitterId: nil, submitterUsername: nil,
            createdAt: now.addingTimeInterval(Double(id)), lastConfirmedAt: now)
    }

    private func found(_ text: String, in store: ModerationStore) async throws -> [Int] {
        try await store.mirroredLibraryPage(MirrorLibraryQuery(status: .pending, text: text), order: .oldest, limit: 50, offset: { _ in 0 }).rows
            .map(\.id)
    }

    /// The ids of the first page of libraries matching `text` in `status`, and how many match in all.
    private func page(_ text: String, _ status: LibraryStatus?, country: String? = nil, in store: ModerationStore) async throws -> [Int] {
        let (rows, total) = try await store.mirroredLibraryPage(
            MirrorLibraryQuery(status: status, text: text, country: country), order: .oldest, limit: 50, offset: { _ in 0 })
        #expect(total == rows.count, "the count beside the list agrees with the list (\(text), \(status?.rawValue ?? "all"))")
        // The index and its table agree row for row after every step (FTS5's own check).
        try await store.writer.write { db in
            try db.execute(sql: "INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch, rank) VALUES ('integrity-check', 1)")
        }
        return rows.map(\.id)
    }

    private func withStore(_ body: (ModerationStore) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await body(try ModerationStore(path: path))
    }

    @Test("folded both ways: Strasse finds Straße, Bucherei finds Bücherei, any case; substrings inside words; ø and æ written out")
    func folding() async throws {
        try await withStore { store in
            try await store.upsertMirror(libraries: [
                library(1, name: "Bücherei am Eck", address: "Hauptstraße 5"),
                library(2, name: "STRASSENBIBLIOTHEK", address: "Ring 1"),
                library(3, name: "Bogskab", address: "Søndergade 3", city: "Århus"),
                library(4, name: "Little Library", address: "Main St 1", city: "Boston"),
            ])
            #expect(try await found("Strasse", in: store) == [1, 2])
            #expect(try await found("straße", in: store) == [1, 2])
            #expect(try await found("Bucherei", in: store) == [1])
            #expect(try await found("BÜCHER", in: store) == [1])
            #expect(try await found("ndergade", in: store) == [3], "a substring inside a word")
            #expect(try await found("Sondergade", in: store) == [3])
            #expect(try await found("arhus", in: store) == [3])
            #expect(try await found("ss", in: store) == [1, 2], "two characters: the scan, folded the same way")
            #expect(try await found("y", in: store) == [4])
            #expect(try await found("library boston", in: store).isEmpty, "no match across two fields")
        }
    }

    @Test("quotes, percent signs, FTS syntax and control characters in the query are text, never syntax or an error")
    func hostileQueries() async throws {
        try await withStore { store in
            try await store.upsertMirror(libraries: [
                library(1, name: #"The "Quoted" Shelf"#), library(2, name: "100% Books"), library(3, name: "Books AND More"), library(4, name: "Plain"),
            ])
            #expect(try await found(#""Quoted""#, in: store) == [1])
            #expect(try await found("0% B", in: store) == [2])
            #expect(try await found("%", in: store) == [2])
            #expect(try await found("AND", in: store) == [3])
            #expect(try await found("s AND m", in: store) == [3])
            #expect(try await found("NEAR(a b)", in: store).isEmpty)
            #expect(try await found("*", in: store).isEmpty)
            #expect(try await found("Pla\u{1F}in", in: store) == [4], "the field separator typed is dropped")
        }
    }

    @Test("the index follows every write: a renamed library is found by its new name only, in the same transaction")
    func keptInStep() async throws {
        try await withStore { store in
            var renamed = library(1, name: "Old Name Shelf")
            try await store.upsertMirror(libraries: [renamed, library(2, name: "Other")])
            #expect(try await found("Old Name", in: store) == [1])
            renamed.name = "Neue Bücherkiste"
            try await store.upsertMirror(libraries: [renamed])
            #expect(try await found("Old Name", in: store).isEmpty)
            #expect(try await found("bucherkiste", in: store) == [1])
            // The index and its table agree row for row (FTS5's own check).
            try await store.writer.write { db in
                try db.execute(sql: "INSERT INTO mirrorLibrarySearch(mirrorLibrarySearch, rank) VALUES ('integrity-check', 1)")
            }
        }
    }

    @Test(
        "a search in one status lists and counts that status only; a status seen at the backend, a console decision or a library gone moves it at once"
    )
    func statusInTheIndex() async throws {
        try await withStore { store in
            var approved = library(2, name: "Paris Corner")
            approved.status = .approved
            var french = library(5, name: "Paris Box", city: "Paris")
            french.country = "FR"
            try await store.upsertMirror(libraries: [
                library(1, name: "Paris Shelf"), approved, library(3, name: "Rue de Paris"), library(4, name: "Lyon"), french,
            ])
            #expect(try await page("paris", .pending, in: store) == [1, 3, 5])
            #expect(try await page("paris", .approved, in: store) == [2])
            #expect(try await page("paris", .rejected, in: store).isEmpty)
            #expect(try await page("paris", nil, in: store) == [1, 2, 3, 5])
            #expect(try await page("paris", .pending, country: "FR", in: store) == [5], "another filter: counted in the table")

            // Approved at the backend, seen by the mirror.
            var seen = library(1, name: "Paris Shelf")
            seen.status = .approved
            try await store.upsertMirror(libraries: [seen], at: now.addingTimeInterval(30))
            #expect(try await page("paris", .pending, in: store) == [3, 5])
            #expect(try await page("paris", .approved, in: store) == [1, 2])

            // Rejected here: the update the console makes once its decision was sent.
            #expect(
                try await store.mirrorDecisionOutcome(
                    kind: .library, itemID: 5, from: .pending, to: .rejected, reason: "Not a library", at: now.addingTimeInterval(45)))
            #expect(try await page("paris", .rejected, in: store) == [5])
            #expect(try await page("paris", .pending, in: store) == [3])

            // Gone at the backend: no status finds it, nor does "all".
            #expect(try await store.markLibraryGone(id: 3, checkedSince: now.addingTimeInterval(60), at: now.addingTimeInterval(60)))
            #expect(try await page("paris", .pending, in: store).isEmpty)
            #expect(try await page("paris", nil, in: store) == [1, 2, 5])

            // A write that changes neither text nor status leaves the index alone.
            try await store.writer.write { db in
                try db.execute(sql: "UPDATE mirrorLibrary SET lastConfirmedAt = ? WHERE id = 2", arguments: [now.addingTimeInterval(90)])
            }
            #expect(try await page("paris", .approved, in: store) == [1, 2])
        }
    }

    @Test("the code the index holds for each row is the one a search in its status asks for, for every status and for a library gone")
    func stateCodesAgree() async throws {
        try await withStore { store in
            let libraries = LibraryStatus.allCases.enumerated().map { index, status in
                var library = library(index + 1, name: "Shelf \(index)")
                library.status = status
                return library
            }
            try await store.upsertMirror(libraries: libraries + [library(99, name: "Gone Shelf")])
            #expect(try await store.markLibraryGone(id: 99, checkedSince: now.addingTimeInterval(60), at: now.addingTimeInterval(60)))
            let codes = try await store.writer.read { db in
                try Dictionary(
                    uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, searchState FROM mirrorLibrary").map {
                        ($0["id"] as Int, $0["searchState"] as String)
                    })
            }
            for library in libraries { #expect(codes[library.id] == LibrarySearchIndex.stateCode(library.status), "\(library.status)") }
            #expect(codes[99] == LibrarySearchIndex.goneCode)
            for library in libraries { #expect(try await page("shelf", library.status, in: store) == [library.id]) }
        }
    }

    @Test(
        "a search matching over a thousand pages like the list: newest, oldest and needs-a-look-first, a middle and the last page, with a country filter too, the count beside it"
    )
    func manyMatchesPageInOrder() async throws {
        try await withStore { store in
            let statuses: [LibraryStatus] = [.pending, .approved, .rejected]
            let libraries = (1...1_800).map { id in
                var library = library(id, name: id % 4 == 0 ? "Corner \(id)" : "Book Nook \(id)")
                library.status = statuses[id % 3]
                library.country = id % 5 == 0 ? "DE" : "FR"
                return library
            }
            try await store.upsertMirror(libraries: libraries)
            #expect(try await store.markLibraryGone(id: 5, checkedSince: now.addingTimeInterval(60), at: now.addingTimeInterval(60)))
            let books = libraries.filter { $0.name.hasPrefix("Book") && $0.id != 5 }
            let cases: [(query: MirrorLibraryQuery, ids: [Int])] = [
                (MirrorLibraryQuery(status: nil, text: "book nook"), books.map(\.id)),
                (MirrorLibraryQuery(status: nil, text: "book nook", country: "FR"), books.filter { $0.country == "FR" }.map(\.id)),
            ]
            for (query, matching) in cases {
                #expect(matching.count > 1_000, "more than reading one by one is for")
                for order in [QueueOrder.newest, .oldest, .needsALookFirst] {
                    // No stored reasons: needing a look first is oldest first.
                    let expected = order == .newest ? matching.reversed() : matching
                    for offset in [0, 500, matching.count - 7] {
                        let (rows, total) = try await store.mirroredLibraryPage(query, order: order, limit: 20, offset: { _ in offset })
                        #expect(total == matching.count)
                        #expect(rows.map(\.id) == Array(expected.dropFirst(offset).prefix(20)), "\(order) from \(offset), \(query.country ?? "any country")")
                    }
                }
            }
            // Over a thousand trigram matches that a filter makes few: read through the index's subquery.
            let fewInGermany = books.filter { $0.country == "DE" }.map(\.id)
            #expect(fewInGermany.count < 1_000)
            for offset in [0, fewInGermany.count - 7] {
                let (rows, total) = try await store.mirroredLibraryPage(
                    MirrorLibraryQuery(status: nil, text: "book nook", country: "DE"), order: .oldest, limit: 20, offset: { _ in offset })
                #expect(total == fewInGermany.count)
                #expect(rows.map(\.id) == Array(fewInGermany.dropFirst(offset).prefix(20)), "DE from \(offset)")
            }
            // A library's previous and next, opened from that search, are its neighbours in the list.
            let middle = books[books.count / 2]
            let position = try #require(books.firstIndex(of: middle))
            for order in [QueueOrder.newest, .oldest] {
                let (before, after) = try await store.mirroredLibraries(
                    around: middle, matching: MirrorLibraryQuery(status: nil, text: "book nook"), order: order, limit: 2)
                let older = [books[position - 1].id, books[position - 2].id]
                let newer = [books[position + 1].id, books[position + 2].id]
                #expect(before.map(\.id) == (order == .oldest ? older : newer), "\(order)")
                #expect(after.map(\.id) == (order == .oldest ? newer : older), "\(order)")
            }
            // Under a thousand: the index's matches are read once, for the count and the page,
            // alone or with a filter the index does not know.
            let pending = books.filter { $0.status == .pending }
            let fewer: [(query: MirrorLibraryQuery, ids: [Int])] = [
                (MirrorLibraryQuery(status: .pending, text: "nook"), pending.map(\.id)),
                (MirrorLibraryQuery(status: .pending, text: "nook", country: "DE"), pending.filter { $0.country == "DE" }.map(\.id)),
            ]
            for (query, matching) in fewer {
                #expect(matching.count < 1_000 && matching.count > 40)
                for order in [QueueOrder.newest, .oldest, .needsALookFirst] {
                    let expected = order == .newest ? matching.reversed() : matching
                    for offset in [0, matching.count - 7] {
                        let (rows, total) = try await store.mirroredLibraryPage(query, order: order, limit: 20, offset: { _ in offset })
                        #expect(total == matching.count)
                        #expect(rows.map(\.id) == Array(expected.dropFirst(offset).prefix(20)), "\(order) from \(offset), \(query.country ?? "any country")")
                    }
                }
            }
        }
    }

    @Test("a search matching over a thousand, walked in the list's order, takes % _ \\ and quotes as typed text, as the index does")
    func manyMatchesTakeWildcardsAsText() async throws {
        try await withStore { store in
            // Odd ids would match too if % and _ were LIKE's wildcards or the quote ended the phrase.
            let libraries = (1...2_200).map { id in library(id, name: id.isMultiple(of: 2) ? #"Shelf 5%_\"Off" \#(id)"# : #"Shelf 5xy\"Off" \#(id)"#) }
            try await store.upsertMirror(libraries: libraries)
            let expected = libraries.filter { $0.id.isMultiple(of: 2) }.map(\.id)
            for status: LibraryStatus? in [nil, .pending] {
                let query = MirrorLibraryQuery(status: status, text: #"5%_\"OFF""#)
                for offset in [0, 1_090] {
                    let (rows, total) = try await store.mirroredLibraryPage(query, order: .oldest, limit: 20, offset: { _ in offset })
                    #expect(total == expected.count)
                    #expect(rows.map(\.id) == Array(expected.dropFirst(offset).prefix(20)), "from \(offset), \(status?.rawValue ?? "all")")
                }
                let (before, after) = try await store.mirroredLibraries(around: libraries[999], matching: query, order: .oldest, limit: 1)
                #expect(before.map(\.id) == [998] && after.map(\.id) == [1_002])
            }
        }
    }

    @Test(
        "a search's matches, kept between two commits, are never shown stale: each commit by another store on the file (a second console) shows in the next search, with its count"
    )
    func keptMatchesFollowEveryCommit() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("search-kept-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let console = try ModerationStore(path: path)
        let other = try ModerationStore(path: path)
        func search(_ status: LibraryStatus?) async throws -> [Int] {
            let (rows, total) = try await console.mirroredLibraryPage(
                MirrorLibraryQuery(status: status, text: "shelf"), order: .oldest, limit: 20, offset: { _ in 0 })
            #expect(total == rows.count, "the count beside the list agrees with the list")
            return rows.map(\.id)
        }
        try await other.upsertMirror(libraries: [library(1, name: "Corner Shelf"), library(2, name: "Book Nook")])
        #expect(console.changeStamp() != nil, "the file has a WAL index, so matches are kept per change")
        #expect(try await search(.pending) == [1])
        #expect(try await search(.pending) == [1], "shown again at the same stamp")

        try await other.upsertMirror(libraries: [library(3, name: "Shelf Three")])
        #expect(try await search(.pending) == [1, 3], "a library added elsewhere")
        #expect(try await other.markLibraryGone(id: 1, checkedSince: now.addingTimeInterval(60), at: now.addingTimeInterval(60)))
        #expect(try await search(.pending) == [3], "a library gone")
        var decided = library(3, name: "Shelf Three")
        decided.status = .approved
        try await other.upsertMirror(libraries: [decided])
        #expect(try await search(.pending) == [], "a library decided leaves the waiting search")
        #expect(try await search(.approved) == [3])
        decided.name = "Reading Corner"
        try await other.upsertMirror(libraries: [decided])
        #expect(try await search(.approved) == [], "a library renamed")
        #expect(try await search(nil) == [], "a gone library is found in no status")
    }

    @Test("a database from before the index knew statuses is indexed again by its migration, statuses and gone rows included")
    func statusMigration() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("search-v42-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try ModerationStoreMigrations.migrator.migrate(queue, upTo: "v42-team-clock")
        try await queue.write { db in
            var approved = library(1, name: "Große Bücherei")
            approved.status = .approved
            try approved.insert(db)
            try library(2, name: "Kleine Bücherei").insert(db)
            try library(3, name: "Alte Bücherei").insert(db)
            try db.execute(sql: "UPDATE mirrorLibrary SET goneAt = '2026-01-01 00:00:00.000' WHERE id = 3")
        }
        try queue.close()
        let store = try ModerationStore(path: path)
        #expect(try await page("bucherei", .approved, in: store) == [1])
        #expect(try await page("bucherei", .pending, in: store) == [2])
        #expect(try await page("bucherei", nil, in: store) == [1, 2])
    }

    @Test("a database from before the index is folded and indexed by its migration")
    func migration() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("search-old-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try ModerationStoreMigrations.migrator.migrate(queue, upTo: "v36-decided-library-concerns")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO mirrorLibrary (id, slug, name, normalizedName, description, address, city, country, postalCode, lat, lng,
                        photoUrl, thumbnailUrl, status, rejectionReason, createdAt, lastConfirmedAt, source)
                    VALUES (7, 'old', 'Alte Bücherei', 'altebucherei', '', 'Große Straße 1', 'Köln', 'DE', '', 50.9, 6.9, '', '', 'pending', '',
                        '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000', '')
                    """)
        }
        try queue.close()
        let store = try ModerationStore(path: path)
        #expect(try await found("grosse strasse", in: store) == [7])
        #expect(try await found("koln", in: store) == [7])
    }

    @Test(
        "white space counts as one space both ways: “Bench   Library” finds “Bench Library”, and a query with one space finds a name stored with a tab or two spaces"
    )
    func spacesCollapsed() async throws {
        try await withStore { store in
            try await store.upsertMirror(libraries: [
                library(1, name: "Bench Library", address: "Hauptstraße 5"),
                library(2, name: "Corner\u{00A0}\u{00A0}Books", address: "Ring\t1"),
                library(3, name: "Benchlibrary"),
            ])
            #expect(try await page("Bench   Library", .pending, in: store) == [1])
            #expect(try await page("bench\u{3000}library", .pending, in: store) == [1], "an ideographic space is a space")
            #expect(try await page("corner books", .pending, in: store) == [2], "no-break spaces stored are one space")
            #expect(try await page("ring 1", nil, in: store) == [2], "a tab stored is one space")
            #expect(try await page("g 1", nil, in: store) == [2], "three characters with a space: the index")
            #expect(try await page("benchlibrary", nil, in: store) == [3], "spaces are not removed, only made one")
            #expect(try await page("bench \u{1} library", nil, in: store) == [1], "a control character dropped leaves one space, not two")
            #expect(try await page("bench\tlibrary", nil, in: store) == [1], "a tab typed between words is a space")
        }
    }

    @Test("a database from before spaces were collapsed has its stored copies collapsed by its migration, and the index follows")
    func spacesMigration() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("search-v48-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path)
        try ModerationStoreMigrations.migrator.migrate(queue, upTo: "v48-concern-evidence-changes")
        try await queue.write { db in
            try library(1, name: "Bench  Library").insert(db)
            try library(2, name: "Other Library").insert(db)
            // As v48 folded it: two spaces kept.
            try db.execute(sql: "UPDATE mirrorLibrary SET searchText = 'bench  library' || char(31) || '' || char(31) || 'berlin' WHERE id = 1")
        }
        try queue.close()
        let store = try ModerationStore(path: path)
        #expect(try await page("bench library", .pending, in: store) == [1])
        #expect(try await page("other library", .pending, in: store) == [2], "a row without runs of space is as it was")
        // `page` runs FTS5's own integrity check: the index agrees with the rewritten copies.
    }
}
