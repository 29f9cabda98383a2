import Foundation
import GRDB
import ModerationVocabulary

/// What the libraries list filters by, as the backend's `libraries/moderation` query does.
public struct MirrorLibraryQuery: Sendable, Equatable {
    /// `nil`: every status.
    public var status: LibraryStatus?
    /// A substring of the name, address or city (case-insensitive for ASCII, as the backend's).
    public var text: String?
    /// ISO 3166-1 alpha-2, upper case.
    public var country: String?
    /// A substring of the source.
    public var source: String?
    /// Only libraries with this stored reason to look (`libraryConcern`).
    public var concern: ConcernFilter?

    /// Which stored reasons a library must have.
    public enum ConcernFilter: Sendable, Equatable {
        /// Any strong reason.
        case anyStrong
        /// A reason of this kind, strong or not.
        case kind(String)
    }

    public init(status: LibraryStatus?, text: String? = nil, country: String? = nil, source: String? = nil, concern: ConcernFilter? = nil) {
        self.status = status
        self.text = text
        self.country = country
        self.source = source
        self.concern = concern
    }
}

/// The reads pages make: they never call the backend, only these.
extension ModerationStore {
    /// The statuses a duplicate may have: a rejected library duplicates nothing.
    public static let duplicateStatuses: [LibraryStatus] = [.approved, .pending]

    /// One page of libraries matching `query` in `order` (each without its whole backend record:
    /// `record` is nil), and how many match in all.
    /// `offset` is given the count: both are read in one snapshot, so a page chosen from the
    /// count is never emptied by a sync write landing between the two reads.
    public func mirroredLibraryPage(
        _ query: MirrorLibraryQuery, order: QueueOrder = .newest, limit: Int, offset: @escaping @Sendable (_ total: Int) -> Int
    ) async throws -> (rows: [MirrorLibrary], total: Int) {
        try readNowAtStamp(when: Self.indexedText(of: query) != nil) { db, stamp in
            // Written as SQL and kept prepared (GRDB's statement cache): building the request and
            // preparing it anew, with GRDB's authorizer called for every column, was a tenth of a
            // rendered list's cost.
            let matches = try fewMatchIDs(of: query, db, stamp: stamp)
            let total: Int
            if let matches, Self.indexOnlyMatch(of: query) != nil {
                total = matches.count
            } else if let counted = try Self.indexedCount(of: query, db) {
                total = counted
            } else {
                total = try Self.count(Self.listConditions(query, search: matches.map(Search.matched) ?? .trigramIndex), db)
            }
            let ordering = order == .needsALookFirst ? Self.libraryRankOrdering : order.isOldestFirst ? "createdAt ASC, id ASC" : "createdAt DESC, id DESC"
            let conditions = Self.listConditions(query, search: Self.search(query, order: order, fewMatches: matches, matching: total))
            return (
                try Self.listedLibraries(db, "WHERE \(conditions.sql) ORDER BY \(ordering) LIMIT ? OFFSET ?", conditions.arguments + [limit, offset(total)]),
                total
            )
        }
    }

    /// Present libraries read by a kept prepared statement, `tail` following `FROM mirrorLibrary`,
    /// each without its whole backend record (kilobytes of JSON only a library's own page shows).
    static func listedLibraries(_ db: Database, _ tail: String, _ arguments: StatementArguments) throws -> [MirrorLibrary] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT \(MirrorLibrary.listedColumns) FROM mirrorLibrary \(tail)"), arguments: arguments)
        var libraries: [MirrorLibrary] = []
        while let row = try rows.next() { libraries.append(try MirrorLibrary(listedRow: row)) }
        return libraries
    }

    /// How many present libraries meet `conditions`.
    private static func count(_ conditions: (sql: String, arguments: StatementArguments), _ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM mirrorLibrary WHERE \(conditions.sql)"), arguments: conditions.arguments) ?? 0
    }

    /// How many present libraries meet `conditions`, counting no further than `limit`: enough to
    /// choose how to find them without counting every one of 18 000.
    private static func count(_ conditions: (sql: String, arguments: StatementArguments), upTo limit: Int, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COUNT(*) FROM (SELECT 1 FROM mirrorLibrary WHERE \(conditions.sql) LIMIT ?)"),
            arguments: conditions.arguments + [limit]) ?? 0
    }

    /// How a list finds the libraries its search text matches.
    enum Search {
        /// The trigram index's MATCH, as a subquery (also for a list without search text).
        case trigramIndex
        /// Each entry of the list's own index, read in the list's order, its folded text checked:
        /// a set of 18 000 matches costs 3 ms to build before the first row, a dense first page
        /// 0.07 ms to walk (the indexes carry the folded text, `v44`).
        case listIndex
        /// These ids, the trigram index's matches read before.
        case matched([Int])
    }

    /// The present libraries matching `query`, as SQL conditions and their arguments: one text
    /// per shape of query, so each shape is prepared once. Three characters and more are searched
    /// as `search` says; shorter ones, or walked, in the folded copy, which matches exactly what
    /// the trigram phrase matches (a substring of the folded text).
    private static func listConditions(_ query: MirrorLibraryQuery, search: Search = .trigramIndex) -> (sql: String, arguments: StatementArguments) {
        var conditions = ["goneAt IS NULL"]
        var arguments: StatementArguments = []
        if let status = query.status {
            conditions.append("status = ?")
            arguments += [status.rawValue]
        }
        if let text = query.text.map(SearchFolding.query), !text.isEmpty {
            switch search {
            case .matched(let ids):
                // A JSON array, so that one prepared statement takes any number of ids.
                conditions.append("id IN (SELECT value FROM json_each(?))")
                arguments += ["[" + ids.map(String.init).joined(separator: ",") + "]"]
            case .trigramIndex where LibrarySearchIndex.canSearch(folded: text):
                conditions.append("id IN (SELECT rowid FROM mirrorLibrarySearch WHERE mirrorLibrarySearch MATCH ?)")
                arguments += [LibrarySearchIndex.match(folded: text, status: query.status)]
            default:
                conditions.append("searchText LIKE ? ESCAPE '\\'")
                arguments += [likePattern(text)]
            }
        }
        if let country = query.country {
            conditions.append("country = ?")
            arguments += [country.uppercased()]
        }
        if let source = query.source {
            conditions.append("source LIKE ? ESCAPE '\\'")
            arguments += [likePattern(source)]
        }
        switch query.concern {
        case .anyStrong:
            conditions.append("id IN (SELECT libraryId FROM libraryConcern WHERE strength = 'strong')")
        case .kind(let kind):
            conditions.append("id IN (SELECT libraryId FROM libraryConcern WHERE kind = ?)")
            arguments += [kind]
        case nil:
            break
        }
        return (conditions.joined(separator: " AND "), arguments)
    }

    /// One page of reports in `status` (all when `nil`) for `reason` (any when `nil`) in
    /// `order`, and how many match in all; `offset` as for libraries.
    public func mirroredReportPage(
        status: ReportStatus?, reason: ReportReason?, order: QueueOrder = .newest, limit: Int, offset: @escaping @Sendable (_ total: Int) -> Int
    ) async throws -> (rows: [MirrorReport], total: Int) {
        try readNow { db in
            var request = MirrorReport.filter(MirrorReport.Columns.goneAt == nil)
            if let status { request = request.filter(MirrorReport.Columns.status == status.rawValue) }
            if let reason { request = request.filter(MirrorReport.Columns.reason == reason.rawValue) }
            let total = try request.fetchCount(db)
            let rows = try request.order(Self.ordering(order)).limit(limit, offset: offset(total)).fetchAll(db)
            return (rows, total)
        }
    }

    /// One page of community photos in `status` (all when `nil`) in `order`, and how many
    /// match in all; `offset` as for libraries.
    public func mirroredPhotoPage(
        status: PhotoStatus?, order: QueueOrder = .newest, limit: Int, offset: @escaping @Sendable (_ total: Int) -> Int
    ) async throws -> (rows: [MirrorPhoto], total: Int) {
        try readNow { db in
            var request = MirrorPhoto.filter(MirrorPhoto.Columns.goneAt == nil)
            if let status { request = request.filter(MirrorPhoto.Columns.status == status.rawValue) }
            let total = try request.fetchCount(db)
            let rows = try request.order(Self.ordering(order)).limit(limit, offset: offset(total)).fetchAll(db)
            return (rows, total)
        }
    }

    /// Each mirrored library's current photo URL ("" for none), by id: the photos page shows
    /// it beside each proposed one.
    public func mirroredPhotoURLs(libraryIDs: Set<Int>) async throws -> [Int: String] {
        try readNow { db in
            let rows = try MirrorLibrary.filter(libraryIDs.contains(MirrorLibrary.Columns.id) && MirrorLibrary.Columns.goneAt == nil)
                .fetchAll(db)
            return Dictionary(rows.map { ($0.id, $0.photoUrl) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Of `ids`, the approved photos no later approved photo of the same library followed: each
    /// is its library's photo now (approving one replaces the library's photo).
    public func mirroredLibraryPhotoIDs(among ids: [Int]) async throws -> Set<Int> {
        guard !ids.isEmpty else { return [] }
        return try readNow { db in
            let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
            return Set(
                try Int.fetchAll(
                    db,
                    sql: """
                        SELECT p.id FROM mirrorPhoto p WHERE p.id IN (\(placeholders)) AND p.status = 'approved' AND p.goneAt IS NULL
                        AND NOT EXISTS (SELECT 1 FROM mirrorPhoto q WHERE q.libraryId = p.libraryId AND q.status = 'approved' AND q.goneAt IS NULL
                            AND (q.createdAt > p.createdAt OR (q.createdAt = p.createdAt AND q.id > p.id)))
                        """, arguments: StatementArguments(ids)))
        }
    }

    /// When each waiting item was submitted (pending libraries, open reports, pending photos), newest first.
    public func mirroredWaitingDates() async throws -> (libraries: [Date], reports: [Date], photos: [Date]) {
        try readNow { db in
            func dates(_ table: String, _ status: String) throws -> [Date] {
                try Date.fetchAll(
                    db, sql: "SELECT createdAt FROM \(table) WHERE status = ? AND goneAt IS NULL ORDER BY createdAt DESC, id DESC",
                    arguments: [status])
            }
            return (
                try dates(MirrorLibrary.databaseTableName, LibraryStatus.pending.rawValue),
                try dates(MirrorReport.databaseTableName, ReportStatus.open.rawValue),
                try dates(MirrorPhoto.databaseTableName, PhotoStatus.pending.rawValue)
            )
        }
    }

    /// The `count` oldest libraries in `status`, oldest first: what has waited longest.
    public func oldestMirroredLibraries(status: LibraryStatus, count: Int) async throws -> [MirrorLibrary] {
        try readNow { db in
            try MirrorLibrary.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM mirrorLibrary WHERE goneAt IS NULL AND status = ? ORDER BY createdAt ASC, id ASC LIMIT ?"),
                arguments: [status.rawValue, count])
        }
    }

    /// The `count` oldest reports in `status`, oldest first.
    public func oldestMirroredReports(status: ReportStatus, count: Int) async throws -> [MirrorReport] {
        try readNow { db in
            try MirrorReport
                .filter(MirrorReport.Columns.goneAt == nil && MirrorReport.Columns.status == status.rawValue)
                .order(MirrorReport.Columns.createdAt, MirrorReport.Columns.id)
                .limit(count)
                .fetchAll(db)
        }
    }

    /// The `count` oldest photos in `status`, oldest first.
    public func oldestMirroredPhotos(status: PhotoStatus, count: Int) async throws -> [MirrorPhoto] {
        try readNow { db in
            try MirrorPhoto
                .filter(MirrorPhoto.Columns.goneAt == nil && MirrorPhoto.Columns.status == status.rawValue)
                .order(MirrorPhoto.Columns.createdAt, MirrorPhoto.Columns.id)
                .limit(count)
                .fetchAll(db)
        }
    }

    /// Other approved or pending libraries within `settings.duplicateMetres` of `library`, or with
    /// its normalised name within `settings.sameNameMetres` (as its reasons see them), then its
    /// namesakes elsewhere in its city, nearest first: at most `limit` (a common name in a big
    /// city can have thousands of namesakes).
    public func mirroredDuplicates(of library: MirrorLibrary, settings: ConcernSettings = .defaults, limit: Int = 20) async throws -> [MirrorLibrary] {
        let neighbourhood = try await mirroredLibraries(
            near: library.lat, library.lng, withinMetres: settings.neighbourhoodMetres, statuses: Self.duplicateStatuses)
        let key = library.normalizedName
        let near = neighbourhood.filter {
            let metres = GreatCircle.metres(library.lat, library.lng, $0.lat, $0.lng)
            return settings.isNearDuplicate(metres: metres) || (!key.isEmpty && $0.normalizedName == key && settings.isNearNamesake(metres: metres))
        }
        let sameName = try await mirroredLibraries(city: library.city, sameNameAs: library.name, statuses: Self.duplicateStatuses)
            .map { (library: $0, metres: GreatCircle.metres(library.lat, library.lng, $0.lat, $0.lng)) }
            .sorted { ($0.metres, $0.library.id) < ($1.metres, $1.library.id) }
            .prefix(limit + near.count + 1)
            .map(\.library)
        var seen: Set<Int> = [library.id]
        return Array((near + sameName).filter { seen.insert($0.id).inserted }.prefix(limit))
    }

    /// The libraries just before and just after `library` in `order` among those matching
    /// `query` (at most `limit` each, nearest first): where "previous" and "next" lead. The
    /// library itself need not match any more (a decision just moved it out of the queue):
    /// its place in the order is its submission time.
    public func mirroredLibraries(
        around library: MirrorLibrary, matching query: MirrorLibraryQuery, order: QueueOrder, limit: Int
    ) async throws -> (before: [MirrorLibrary], after: [MirrorLibrary]) {
        try readNowAtStamp(when: Self.indexedText(of: query) != nil) { db, stamp in
            let matches = try fewMatchIDs(of: query, db, stamp: stamp)
            // More than a few trigram matches: the whole query counted only as far as choosing
            // how to find the neighbours needs (the index alone answered: more than a few).
            let matching =
                matches != nil || Self.indexedText(of: query) == nil
                ? 0
                : Self.indexOnlyMatch(of: query) != nil ? Self.fewMatches + 1 : try Self.count(Self.listConditions(query), upTo: Self.fewMatches + 1, db)
            let conditions = Self.listConditions(query, search: Self.search(query, order: order, fewMatches: matches, matching: matching))
            func read(_ place: String, _ key: StatementArguments, ordering: String) throws -> [MirrorLibrary] {
                try Self.listedLibraries(
                    db, "WHERE \(conditions.sql) AND id != ? AND \(place) ORDER BY \(ordering) LIMIT ?", conditions.arguments + [library.id] + key + [limit])
            }
            if order == .needsALookFirst {
                // Its rank as it stood (a library decided a moment ago keeps its place).
                let rank = try Self.concernRanks(of: [library], db)[library.id] ?? .none
                let key: StatementArguments = [rank.rawValue, library.createdAt, library.id]
                let next = try read("(\(Self.libraryRank), createdAt, id) > (?, ?, ?)", key, ordering: Self.libraryRankOrdering)
                let previous = try read("(\(Self.libraryRank), createdAt, id) < (?, ?, ?)", key, ordering: Self.libraryRankOrderingReversed)
                return (previous, next)
            }
            let key: StatementArguments = [library.createdAt, library.createdAt, library.id]
            let newer = try read("(createdAt > ? OR (createdAt = ? AND id > ?))", key, ordering: "createdAt ASC, id ASC")
            let older = try read("(createdAt < ? OR (createdAt = ? AND id < ?))", key, ordering: "createdAt DESC, id DESC")
            return order.isOldestFirst ? (older, newer) : (newer, older)
        }
    }

    /// The reports just before and just after `report` in `order` among those in `status` (all
    /// when `nil`) for `reason` (any when `nil`), at most `limit` each, nearest first: where a
    /// report's "previous" and "next" lead. As for libraries, `report` itself need not match.
    public func mirroredReports(
        around report: MirrorReport, status: ReportStatus?, reason: ReportReason?, order: QueueOrder, limit: Int
    ) async throws -> (before: [MirrorReport], after: [MirrorReport]) {
        try readNow { db in
            var request = MirrorReport.filter(MirrorReport.Columns.goneAt == nil && MirrorReport.Columns.id != report.id)
            if let status { request = request.filter(MirrorReport.Columns.status == status.rawValue) }
            if let reason { request = request.filter(MirrorReport.Columns.reason == reason.rawValue) }
            let created = MirrorReport.Columns.createdAt
            let id = MirrorReport.Columns.id
            let earlier = created < report.createdAt || (created == report.createdAt && id < report.id)
            let later = created > report.createdAt || (created == report.createdAt && id > report.id)
            let newer = try request.filter(later).order(created, id).limit(limit).fetchAll(db)
            let older = try request.filter(earlier).order(created.desc, id.desc).limit(limit).fetchAll(db)
            return order.isOldestFirst ? (older, newer) : (newer, older)
        }
    }

    /// The present reports with these ids (a list shows the ones its viewer just decided in place).
    public func mirroredReports(ids: [Int], reason: ReportReason?) async throws -> [MirrorReport] {
        guard !ids.isEmpty else { return [] }
        return try readNow { db in
            var request = MirrorReport.filter(MirrorReport.Columns.goneAt == nil && ids.contains(MirrorReport.Columns.id))
            if let reason { request = request.filter(MirrorReport.Columns.reason == reason.rawValue) }
            return try request.fetchAll(db)
        }
    }

    /// The present community photos with these ids (as for reports).
    public func mirroredPhotos(ids: [Int]) async throws -> [MirrorPhoto] {
        guard !ids.isEmpty else { return [] }
        return try readNow { db in
            try MirrorPhoto.filter(MirrorPhoto.Columns.goneAt == nil && ids.contains(MirrorPhoto.Columns.id)).fetchAll(db)
        }
    }

    /// The libraries named by `slugs` that match `query` but for its status.
    public func mirroredLibraries(slugs: [String], matching query: MirrorLibraryQuery) async throws -> [MirrorLibrary] {
        guard !slugs.isEmpty else { return [] }
        var anyStatusQuery = query
        anyStatusQuery.status = nil
        let anyStatus = anyStatusQuery
        return try readNow { db in
            let conditions = Self.listConditions(anyStatus)
            return try MirrorLibrary.fetchAll(
                Self.statement(
                    db, sql: "SELECT * FROM mirrorLibrary WHERE \(conditions.sql) AND slug IN (\(databaseQuestionMarks(count: slugs.count)))",
                    keys: slugs.count),
                arguments: conditions.arguments + StatementArguments(slugs))
        }
    }

    /// Submission time, then id (two items submitted in one instant keep one order); ranked
    /// orders are only the libraries', and other lists take them as oldest first.
    private static func ordering(_ order: QueueOrder) -> [any SQLOrderingTerm] {
        let created = Column("createdAt")
        let id = Column("id")
        return order.isOldestFirst ? [created.asc, id.asc] : [created.desc, id.desc]
    }

    /// Up to this many search matches, a page reads each match (about 1.3 µs each at 50 000
    /// libraries); above, it walks the list's index and checks each entry's folded text, which
    /// costs by how far the page lies: 0.07 ms for a first page of "book" (18 000 matches, a
    /// third of the mirror; 24 ms read), 7 ms for its last page, about the whole index. At 1 000
    /// matches reading costs about 1.3 ms, so a sparse late page walked costs at most a few times that.
    private static let fewMatches = 1_000

    /// How a list of `query` in `order` finds its search's matches, given the trigram index's
    /// `fewMatches` (nil when it found more, or the query searches no indexed text) and how many
    /// libraries match the whole query (`matching`, counted at least past `fewMatches`): few are
    /// cheapest read one by one and sorted; many ("book": a third of the mirror) are found sooner
    /// by walking the list's own index; many trigram matches that a filter makes few, through the
    /// trigram subquery. A ranked order has no index to walk: it sorts every match.
    private static func search(_ query: MirrorLibraryQuery, order: QueueOrder, fewMatches matches: [Int]?, matching: Int) -> Search {
        if let matches { return .matched(matches) }
        return indexedText(of: query) != nil && matching > fewMatches && order != .needsALookFirst ? .listIndex : .trigramIndex
    }

    /// The ids the trigram index matches for `query`'s text when there are no more than
    /// `fewMatches`; nil for more, or no text long enough for the index. Read once for a list's
    /// count and its page (the MATCH run for each was a quarter of a search's cost at 50 000),
    /// and kept until the database moves from `stamp`, the snapshot's.
    private func fewMatchIDs(of query: MirrorLibraryQuery, _ db: Database, stamp: ChangeStamp?) throws -> [Int]? {
        guard let text = Self.indexedText(of: query) else { return nil }
        let match = LibrarySearchIndex.match(folded: text, status: query.status)
        return try perChange.searchMatches.value(for: match, stamp: stamp) {
            let ids = try Int.fetchAll(
                db.cachedStatement(sql: "SELECT rowid FROM mirrorLibrarySearch WHERE mirrorLibrarySearch MATCH ? LIMIT ?"),
                arguments: [match, Self.fewMatches + 1])
            return ids.count <= Self.fewMatches ? ids : nil
        }
    }

    /// The folded text `query` searches the trigram index for (three characters or more); `nil`
    /// when it searches nothing or is too short for the index.
    private static func indexedText(of query: MirrorLibraryQuery) -> String? {
        query.text.map(SearchFolding.query).flatMap { LibrarySearchIndex.canSearch(folded: $0) ? $0 : nil }
    }

    /// The trigram index's MATCH for `query` when the index alone answers it: a search of three
    /// characters or more in one status or all (the index holds both); `nil` when the query needs
    /// the table (another filter, a short search, no search).
    private static func indexOnlyMatch(of query: MirrorLibraryQuery) -> String? {
        guard query.country == nil, query.source == nil, query.concern == nil, let text = indexedText(of: query) else { return nil }
        return LibrarySearchIndex.match(folded: text, status: query.status)
    }

    /// How many libraries match `query`, counted in the search index alone; `nil` when it cannot be.
    private static func indexedCount(of query: MirrorLibraryQuery, _ db: Database) throws -> Int? {
        guard let match = indexOnlyMatch(of: query) else { return nil }
        return try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM mirrorLibrarySearch WHERE mirrorLibrarySearch MATCH ?"), arguments: [match])
    }

    /// `%text%` with LIKE's own wildcards escaped: a `%` typed in the search box is a percent sign.
    private static func likePattern(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
        return "%\(escaped)%"
    }
}
