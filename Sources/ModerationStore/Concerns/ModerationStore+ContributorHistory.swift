import Foundation
import GRDB
import ModerationVocabulary

/// What one account sent before, as the mirror holds it, newest first: the libraries and
/// photos they submitted and the reports they made, with how many of each there are in all.
public struct ContributorHistory: Sendable {
    /// The newest libraries, and the newest rejected ones (a rejection says most of a contributor).
    public var libraries: [MirrorLibrary] = []
    /// As for libraries.
    public var photos: [MirrorPhoto] = []
    /// The newest reports.
    public var reports: [MirrorReport] = []
    /// How many of each kind the mirror holds, by status (`"rejected": 3`), the items read above or not.
    public var libraryCounts: [String: Int] = [:]
    public var photoCounts: [String: Int] = [:]
    public var reportCounts: [String: Int] = [:]

    public init() {}
}

extension ModerationStore {
    /// The account's items other than the ones named: of each kind the `limit` newest and, for
    /// libraries and photos, the `limit` newest rejected ones too, and how many there are in all
    /// by status; in one read (each on an index by account and time).
    public func contributorHistory(
        accountId: Int, excludingLibrary library: Int? = nil, excludingReport report: Int? = nil, limit: Int = 12
    ) async throws -> ContributorHistory {
        try readNow { db in
            var history = ContributorHistory()
            let libraries = MirrorLibrary.filter(
                MirrorLibrary.Columns.submitterId == accountId && MirrorLibrary.Columns.goneAt == nil && MirrorLibrary.Columns.id != (library ?? -1))
            let photos = MirrorPhoto.filter(MirrorPhoto.Columns.submitterId == accountId && MirrorPhoto.Columns.goneAt == nil)
            let reports = MirrorReport.filter(
                MirrorReport.Columns.reporterId == accountId && MirrorReport.Columns.goneAt == nil && MirrorReport.Columns.id != (report ?? -1))
            let rejected = LibraryStatus.rejected.rawValue
            history.libraries = Self.union(
                try Self.newest(libraries, limit, db), try Self.newest(libraries.filter(MirrorLibrary.Columns.status == rejected), limit, db), id: \.id)
            history.photos = Self.union(
                try Self.newest(photos, limit, db), try Self.newest(photos.filter(MirrorPhoto.Columns.status == rejected), limit, db), id: \.id)
            history.reports = try Self.newest(reports, limit, db)
            history.libraryCounts = try Self.countsByStatus(libraries, db)
            history.photoCounts = try Self.countsByStatus(photos, db)
            history.reportCounts = try Self.countsByStatus(reports, db)
            return history
        }
    }

    private static func newest<Item: FetchableRecord & TableRecord>(_ request: QueryInterfaceRequest<Item>, _ limit: Int, _ db: Database) throws -> [Item] {
        try request.order(Column("createdAt").desc, Column("id").desc).limit(limit).fetchAll(db)
    }

    private static func countsByStatus<Item>(_ request: QueryInterfaceRequest<Item>, _ db: Database) throws -> [String: Int] {
        let rows = try Row.fetchAll(db, request.select(Column("status"), count(Column("id"))).group(Column("status")))
        return Dictionary(rows.map { ($0[0] as String, $0[1] as Int) }, uniquingKeysWith: +)
    }

    /// `first`, then those of `second` not in it.
    private static func union<Item>(_ first: [Item], _ second: [Item], id: (Item) -> Int) -> [Item] {
        var seen = Set(first.map(id))
        return first + second.filter { seen.insert(id($0)).inserted }
    }
}
