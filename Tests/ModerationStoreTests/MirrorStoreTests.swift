import BookCornersAPI
import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import Testing

@Suite("ModerationStore: the mirror's tables")
struct MirrorStoreTests {
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-\(UUID().uuidString)")
    private var path: String { directory.appendingPathComponent("console.sqlite").path }
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func withStore(_ body: (ModerationStore) async throws -> Void) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(try ModerationStore(path: path))
    }

    private func library(
        _ id: Int, status: LibraryStatus = .pending, name: String = "Corner Books", city: String = "Florence",
        lat: Double = 43.77, lng: Double = 11.25, created: TimeInterval = 0, confirmed: Date? = nil
    ) -> MirrorLibrary {
        MirrorLibrary(
            id: id, slug: "library-\(id)", name: name, description: "", address: "Via Roma \(id)", city: city, country: "IT",
            postalCode: "50100", lat: lat, lng: lng, photoUrl: "", thumbnailUrl: "", status: status, rejectionReason: "",
            submitterId: nil, submitterUsername: nil, createdAt: now.addingTimeInterval(-86_400 + created),
            lastConfirmedAt: confirmed ?? now)
    }

    private func report(_ id: Int, status: ReportStatus = .open, confirmed: Date) -> MirrorReport {
        MirrorReport(
            id: id, libraryId: 1, librarySlug: "library-1", libraryName: "Corner Books", libraryAddress: "", libraryCity: "Florence",
            libraryCountry: "IT", libraryStatus: .approved, reporterId: 3, reporterUsername: "alice", reason: .incorrectInfo,
            details: "wrong pin", photoUrl: "", status: status, createdAt: now.addingTimeInterval(-3_600), lastConfirmedAt: confirmed)
    }

    @Test("a library read for a list (by column position, without its record) is the library read whole (by column name), but for the record")
    func listedReadMatchesWholeRead() async throws {
        try await withStore { store in
            var full = library(1, status: .rejected, name: "Bücher | Ecke", city: "Zürich", lat: -33.5, lng: 151.25, created: 12.5)
            full.description = "Zwei Regale\r\nim Hof"
            full.photoUrl = "https://example.org/p.jpg"
            full.thumbnailUrl = "https://example.org/t.jpg"
            full.rejectionReason = "Duplicate"
            full.submitterId = 42
            full.submitterUsername = "yuki"
            full.source = "osm-import"
            full.record = Data(#"{"id":1}"#.utf8)
            try await store.upsertMirror(libraries: [full, library(2)])
            for slug in ["library-1", "library-2"] {
                var whole = try #require(try await store.mirroredLibrary(slug: slug))
                let listed = try await store.mirroredLibraryPage(MirrorLibraryQuery(status: nil), limit: 50, offset: { _ in 0 }).rows
                let row = try #require(listed.first { $0.slug == slug })
                #expect(row.record == nil, "a list reads no record")
                whole.record = nil
                #expect(row == whole, "every other field as the whole read has it (\(slug))")
            }
        }
    }

    @Test("reading the same page twice, or again after a restart, updates rows and never duplicates them; statuses come back typed")
    func upsertsNeverDuplicate() async throws {
        try await withStore { store in
            // setup
            try await store.upsertMirror(libraries: (1...5).map { library($0) })
            // act: the same page again with one status changed, then after reopening the file
            var changed = (1...5).map { library($0, confirmed: now.addingTimeInterval(30)) }
            changed[2].status = .approved
            try await store.upsertMirror(libraries: changed)
            let reopened = try ModerationStore(path: path)
            try await reopened.upsertMirror(libraries: [changed[2]])
            // check
            #expect(try await reopened.mirroredLibraryPage(MirrorLibraryQuery(status: nil), limit: 0, offset: { _ in 0 }).total == 5)
            #expect(try await reopened.mirroredLibraryPage(MirrorLibraryQuery(status: .pending), limit: 0, offset: { _ in 0 }).total == 4)
            #expect(try await reopened.mirroredLibrary(slug: "library-3")?.status == .approved)
            #expect(try await reopened.mirroredLibrary(slug: "library-3")?.lastConfirmedAt == now.addingTimeInterval(30))
            let raw = try await DatabaseQueue(path: path).read { db in
                try String.fetchOne(db, sql: "SELECT status FROM mirrorLibrary WHERE id = 3")
            }
            #expect(raw == "approved", "the column holds the backend's raw string")
            try await reopened.upsertMirror(reports: [report(1, confirmed: now), report(1, status: .resolved, confirmed: now)])
            #expect(try await reopened.mirroredReports(status: nil, limit: 10, offset: 0).map(\.status) == [.resolved])
            #expect(try await reopened.mirroredReports(status: nil, limit: 10, offset: 0).first?.reason == .incorrectInfo)
        }
    }

    @Test("a library missing from a pass is gone only once a 404 is recorded, and not if a later read confirmed it")
    func goneOnlyAfterConfirmation() async throws {
        try await withStore { store in
            // setup: a pass starts at now+60; library 2 is listed by it, 1 and 3 are not
            try await store.upsertMirror(libraries: [library(1), library(2), library(3)])
            let passStart = now.addingTimeInterval(60)
            try await store.upsertMirror(libraries: [library(2, confirmed: now.addingTimeInterval(61))])
            // act
            let missing = try await store.librariesMissing(fromPassStartedAt: passStart, limit: 10).map(\.id)
            let marked = try await store.markLibraryGone(id: 1, checkedSince: passStart, at: now.addingTimeInterval(70))
            // library 3: its detail read started, but a list read confirmed it meanwhile
            try await store.upsertMirror(libraries: [library(3, confirmed: now.addingTimeInterval(75))])
            let notMarked = try await store.markLibraryGone(id: 3, checkedSince: now.addingTimeInterval(72), at: now.addingTimeInterval(80))
            // check
            #expect(missing == [1, 3])
            #expect(marked)
            #expect(!notMarked)
            #expect(try await store.mirroredLibraries(status: nil, limit: 10, offset: 0).map(\.id).sorted() == [2, 3])
            #expect(try await store.mirroredLibrary(slug: "library-1") == nil)
            // a gone library listed again is back
            try await store.upsertMirror(libraries: [library(1, confirmed: now.addingTimeInterval(90))])
            #expect(try await store.mirroredLibrary(slug: "library-1") != nil)
        }
    }

    @Test(
        "a report missing from complete passes is never gone by absence alone: each pass names it for a confirming read, and only that read's verdict marks it gone"
    )
    func reportsGoneOnlyWhenConfirmed() async throws {
        try await withStore { store in
            // setup
            try await store.upsertMirror(reports: [report(1, confirmed: now), report(2, confirmed: now)])
            // act: pass 1 lists only report 2, pass 2 again only report 2
            try await store.upsertMirror(reports: [report(2, confirmed: now.addingTimeInterval(11))])
            let first = try await store.completeReportPass(startedAt: now.addingTimeInterval(10), at: now.addingTimeInterval(12))
            try await store.upsertMirror(reports: [report(2, confirmed: now.addingTimeInterval(21))])
            let second = try await store.completeReportPass(startedAt: now.addingTimeInterval(20), at: now.addingTimeInterval(22))
            let presentAfterPasses = try await store.mirroredReports(status: nil, limit: 10, offset: 0).map(\.id)
            let toConfirm = try await store.reportsMissing(fromPassStartedAt: now.addingTimeInterval(20), limit: 10).map(\.id)
            // a confirming read that began before a later read listed it changes nothing; one after, marks it gone
            try await store.upsertMirror(reports: [report(1, confirmed: now.addingTimeInterval(31))])
            let staleVerdict = try await store.markReportGone(id: 1, checkedSince: now.addingTimeInterval(30), at: now.addingTimeInterval(33))
            let verdict = try await store.markReportGone(id: 1, checkedSince: now.addingTimeInterval(40), at: now.addingTimeInterval(41))
            // check
            #expect(first == [1] && second == [1], "named for confirmation after each pass")
            #expect(presentAfterPasses == [2, 1] || presentAfterPasses == [1, 2], "still mirrored after two missed passes")
            #expect(toConfirm == [1])
            #expect(!staleVerdict && verdict)
            #expect(try await store.mirroredReports(status: nil, limit: 10, offset: 0).map(\.id) == [2])
        }
    }

    @Test("a report missed by one pass, listed by the next and missed again is not gone: only misses in a row count")
    func missesMustBeInARow() async throws {
        try await withStore { store in
            // setup
            try await store.upsertMirror(reports: [report(1, confirmed: now)])
            // act: missed, listed, missed
            _ = try await store.completeReportPass(startedAt: now.addingTimeInterval(10), at: now.addingTimeInterval(12))
            try await store.upsertMirror(reports: [report(1, confirmed: now.addingTimeInterval(21))])
            _ = try await store.completeReportPass(startedAt: now.addingTimeInterval(20), at: now.addingTimeInterval(22))
            let third = try await store.completeReportPass(startedAt: now.addingTimeInterval(30), at: now.addingTimeInterval(32))
            // check
            #expect(third == [1], "missed again: named for a confirming read, not gone")
            #expect(try await store.mirroredReports(status: nil, limit: 10, offset: 0).map(\.id) == [1])
        }
    }

    @Test("pages come newest first by status; duplicates by distance (a bounding box, then the exact metres) and by normalised name")
    func pageAndDuplicateQueries() async throws {
        try await withStore { store in
            // setup: 10 m and 60 m north of library 1; one of the same name in another spelling
            let metre = 1 / 111_195.0
            try await store.upsertMirror(libraries: [
                library(1, status: .approved, created: 10),
                library(2, status: .pending, name: "x", lat: 43.77 + 10 * metre, created: 20),
                library(3, status: .approved, name: "y", lat: 43.77 + 60 * metre, created: 30),
                library(4, status: .rejected, name: "z", lat: 43.77 + 5 * metre, created: 40),
                library(5, status: .pending, name: "  CORNER böoks! ", lat: 45, created: 50),
                library(6, status: .approved, name: "Corner Books", city: "Milan", lat: 45.46, created: 60),
            ])
            // act
            let near = try await store.mirroredLibraries(near: 43.77, 11.25, withinMetres: 50, statuses: [.approved, .pending])
            let named = try await store.mirroredLibraries(city: "Florence", sameNameAs: "Corner Books", statuses: [.approved, .pending])
            let pending = try await store.mirroredLibraries(status: .pending, limit: 10, offset: 0)
            // check
            #expect(near.map(\.id) == [1, 2], "60 m is too far; a rejected one does not count")
            #expect(named.map(\.id) == [1, 5], "case, accents, spaces and punctuation do not matter; another city does")
            #expect(pending.map(\.id) == [5, 2])
        }
    }

    @Test("the page and duplicate queries use the mirror's indexes, not a scan")
    func queriesUseIndexes() async throws {
        try await withStore { _ in
            let plans = try DatabaseQueue(path: path).read { db in
                try [
                    "SELECT * FROM mirrorLibrary WHERE status = 'pending' AND goneAt IS NULL ORDER BY createdAt DESC, id DESC LIMIT 20",
                    "SELECT * FROM mirrorLibrary WHERE city = 'Florence' AND normalizedName = 'cornerbooks'",
                    // as the duplicate search sends it (statuses are checked after: with `status IN` SQLite took the status index)
                    "SELECT * FROM mirrorLibrary WHERE goneAt IS NULL AND id != 1 AND lat >= 43.7 AND lat <= 43.8 AND lng >= 11.2 AND lng <= 11.3",
                    // a search too short for the trigram index: the folded text is read from the list index, not from every row
                    #"SELECT COUNT(*) FROM mirrorLibrary WHERE goneAt IS NULL AND status = 'pending' AND searchText LIKE '%pa%' ESCAPE '\'"#,
                ].map { sql in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String? ?? "" }.joined(separator: "; ") }
            }
            #expect(plans[0].contains("mirrorLibrary_present_status_createdAt"), "\(plans[0])")
            #expect(!plans[0].contains("TEMP B-TREE"), "ordered by the index: \(plans[0])")
            #expect(plans[1].contains("mirrorLibrary_city_name"), "\(plans[1])")
            #expect(plans[2].contains("mirrorLibrary_position"), "\(plans[2])")
            #expect(plans[3].contains("mirrorLibrary_present_status_createdAt"), "\(plans[3])")
            let indexed = try DatabaseQueue(path: path).read { db in
                try ["mirrorLibrary_present_status_createdAt", "mirrorLibrary_present_createdAt"].map { index in
                    try Row.fetchAll(db, sql: "PRAGMA index_info(\(index))").compactMap { $0["name"] as String? }
                }
            }
            #expect(indexed.allSatisfy { $0.contains("searchText") }, "\(indexed)")
        }
    }

    @Test("what an open page is told of an item starts from its latest decision, found by index rather than a scan of every decision")
    func latestDecisionUsesAnIndex() async throws {
        try await withStore { _ in
            let plan = try DatabaseQueue(path: path).read { db in
                try Row.fetchAll(
                    db, sql: "EXPLAIN QUERY PLAN SELECT * FROM action WHERE targetKind = 'library' AND targetKey = 'corner' ORDER BY id DESC LIMIT 1"
                ).map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
            }
            #expect(plan.contains("action_target_latest"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE") && !plan.contains("SCAN action"), "\(plan)")
        }
    }

    @Test("page counts and newest-first pages of present rows read an index of present rows: no row lookups, no scan, no sort")
    func pageCountsReadOnlyPresentRowIndexes() async throws {
        try await withStore { _ in
            // setup: the SQL GRDB sends for the list pages' `fetchCount` and first page (status filter or all)
            let queries = ["mirrorLibrary": "pending", "mirrorReport": "open", "mirrorPhoto": "pending"].flatMap { table, waiting in
                [
                    "SELECT COUNT(*) FROM \"\(table)\" WHERE (\"goneAt\" IS NULL) AND (\"status\" = '\(waiting)')",
                    "SELECT COUNT(*) FROM \"\(table)\" WHERE \"goneAt\" IS NULL",
                    "SELECT * FROM \"\(table)\" WHERE (\"goneAt\" IS NULL) AND (\"status\" = '\(waiting)') ORDER BY \"createdAt\" DESC, \"id\" DESC LIMIT 20",
                    "SELECT * FROM \"\(table)\" WHERE \"goneAt\" IS NULL ORDER BY \"createdAt\" DESC, \"id\" DESC LIMIT 20 OFFSET 40",
                ]
            }
            // act
            let (plans, partialIndexes) = try DatabaseQueue(path: path).read { db -> ([String], [String]) in
                let plans = try queries.map { sql in
                    try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String? ?? "" }.joined(separator: "; ")
                }
                let partial = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%WHERE goneAt IS NULL%'")
                return (plans, partial)
            }
            // check: with 50 000 libraries a count through an index of every status read each of
            // 6 000 pending rows for its goneAt, and "all" scanned and sorted the whole table
            for (sql, plan) in zip(queries, plans) {
                let index = plan.components(separatedBy: "INDEX ").dropFirst().first?.components(separatedBy: " ").first
                #expect(index.map { partialIndexes.contains($0) } == true, "\(sql): \(plan)")
                #expect(!plan.contains("TEMP B-TREE"), "\(sql): \(plan)")
            }
        }
    }

    @Test("a scope's window, reads spent, pause and pass cursor survive a restart")
    func scopeStateSurvivesRestart() async throws {
        try await withStore { store in
            // setup
            #expect(try await store.mirrorScopeState(.libraryList) == MirrorScopeState(scope: .libraryList))
            let state = MirrorScopeState(
                scope: .libraryList, windowIndex: 6_000_000, readsSpent: 12, decisionReadsSpent: 2,
                pausedUntil: now.addingTimeInterval(40), passNextPage: 7, passStartedAt: now)
            // act
            try await store.saveMirrorScopeState(state)
            let reopened = try ModerationStore(path: path)
            // check
            #expect(try await reopened.mirrorScopeState(.libraryList) == state)
            #expect(try await reopened.mirrorScopeState(.reportList).passNextPage == 1)
        }
    }

    @Test("the summary and the statistics are one row each, replaced on every read")
    func summaryAndStatistics() async throws {
        try await withStore { store in
            try await store.saveMirror(
                summary: MirrorSummary(
                    pendingLibraries: 1, openReports: 2, pendingPhotos: 3, totalPending: 6, totalLibraries: 9, totalUsers: 4, lastConfirmedAt: now))
            try await store.saveMirror(
                summary: MirrorSummary(
                    pendingLibraries: 0, openReports: 2, pendingPhotos: 3, totalPending: 5, totalLibraries: 10, totalUsers: 4,
                    lastConfirmedAt: now.addingTimeInterval(5)))
            try await store.saveMirror(statistics: MirrorStatistics(json: Data(#"{"total_approved": 10}"#.utf8), lastConfirmedAt: now))
            #expect(try await store.mirrorSummary()?.totalLibraries == 10)
            #expect(try await store.mirrorSummary()?.lastConfirmedAt == now.addingTimeInterval(5))
            #expect(try await store.mirrorStatistics()?.json == Data(#"{"total_approved": 10}"#.utf8))
        }
    }

    @Test("the count and the page it chooses come from one snapshot: while the sync moves rows, the last page is never empty")
    func pageAndCountAgree() async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // setup: 55 pending libraries; a writer keeps taking 15 out of the queue and putting them back.
        // The writer is a detached task: each of its writes waits on GRDB's own queue, not on the cooperative pool.
        let store = try ModerationStore(path: path)
        try await store.upsertMirror(libraries: (1...55).map { library($0, created: TimeInterval($0)) })
        let movable = (1...15).map { library($0, created: TimeInterval($0)) }
        let stop = StopFlag()
        defer { stop.set() }
        let now = self.now
        let writer = Task.detached { () -> Int in
            var round = 0
            while !stop.isSet {
                round += 1
                let status: LibraryStatus = round.isMultiple(of: 2) ? .pending : .approved
                for row in movable {
                    _ = try? await store.mirrorDecisionOutcome(
                        kind: .library, itemID: row.id, from: status == .pending ? .approved : .pending, to: ItemStatus(status), reason: nil, at: now)
                }
                stop.roundDone()
            }
            return round
        }
        // The reads start once the writer has moved the queue at least once.
        while try await store.mirroredLibraryPage(MirrorLibraryQuery(status: .pending), limit: 0, offset: { _ in 0 }).total == 55 {
            try await Task.sleep(for: .milliseconds(5))
        }
        // act: "page 999" of 20, read again and again, until the writer has moved the queue several
        // times meanwhile (a page's reads run on the caller's thread, so they may outpace it)
        var mismatches: [String] = []
        let roundsBefore = stop.roundsDone
        var reads = 0
        while reads < 300 || stop.roundsDone < roundsBefore + 4 {
            reads += 1
            // The writer's task needs a thread of the pool too.
            await Task.yield()
            let (rows, total) = try await store.mirroredLibraryPage(MirrorLibraryQuery(status: .pending), limit: 20) { total in
                (max(1, (total + 19) / 20) - 1) * 20
            }
            let expected = total - (max(1, (total + 19) / 20) - 1) * 20
            if rows.count != expected { mismatches.append("total \(total), rows \(rows.count)") }
        }
        stop.set()
        let rounds = await writer.value
        // check: the writer moved the queue all along (more than once), and no page disagreed with its count
        #expect(rounds > 1, "the writer ran \(rounds) rounds")
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test(
        "a name shared by many libraries in one city gives at most 20 duplicates, the near one first; the row's evidence names the near one, not the namesakes")
    func manyNamesakes() async throws {
        try await withStore { store in
            // setup: the library, one neighbour 10 m away under another name, and 40 namesakes across the city
            var rows = [library(1), library(2, name: "Garden Books", lat: 43.77 + 10 / GreatCircle.metresPerDegree)]
            rows += (3...42).map { library($0, lat: 43.70 + Double($0) * 0.001) }
            try await store.upsertMirror(libraries: rows)
            let anchor = try #require(try await store.mirroredLibrary(slug: "library-1"))
            // act
            let duplicates = try await store.mirroredDuplicates(of: anchor)
            let evidence = try await store.libraryEvidence(for: [anchor])[1]
            // check
            #expect(duplicates.count == 20)
            #expect(duplicates.first?.id == 2, "the one within 50 m comes first")
            #expect(!duplicates.contains { $0.id == 1 }, "never itself")
            #expect(evidence?.nearest?.id == 2, "the row's badge is for the one within 50 m")
            #expect(evidence?.namesakeNearby == nil, "namesakes across the city are no reason on their own")
        }
    }
}

/// A flag one thread sets and another reads.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    private var rounds = 0

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }

    /// The writer's rounds finished so far.
    var roundsDone: Int { lock.withLock { rounds } }

    func roundDone() { lock.withLock { rounds += 1 } }
}
