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
    /// by status; in one read (each on an index by account and time), libraries without their
    /// whole record. Each statement is kept prepared: a library's page reads all eight.
    public func contributorHistory(
        accountId: Int, excludingLibrary library: Int? = nil, excludingReport report: Int? = nil, limit: Int = 12
    ) async throws -> ContributorHistory {
        try readNow { db in
            var history = ContributorHistory()
            let rejected = LibraryStatus.rejected.rawValue
            let libraries = ("mirrorLibrary", "submitterId = ? AND goneAt IS NULL AND id != ?", [accountId, library ?? -1] as StatementArguments)
            let photos = ("mirrorPhoto", "submitterId = ? AND goneAt IS NULL", [accountId] as StatementArguments)
            let reports = ("mirrorReport", "reporterId = ? AND goneAt IS NULL AND id != ?", [accountId, report ?? -1] as StatementArguments)
            func newestLibraries(status: String? = nil) throws -> [MirrorLibrary] {
                let (tail, arguments) = Self.newest(libraries, status: status, limit)
                return try Self.listedLibraries(db, tail, arguments)
            }
            func newest<Item: FetchableRecord>(_ selection: Selection, status: String? = nil) throws -> [Item] {
                let (tail, arguments) = Self.newest(selection, status: status, limit)
                return try Item.fetchAll(db.cachedStatement(sql: "SELECT * FROM \(selection.table) \(tail)"), arguments: arguments)
            }
            history.libraries = Self.union(try newestLibraries(), try newestLibraries(status: rejected), id: \.id)
            history.photos = Self.union(try newest(photos), try newest(photos, status: rejected), id: \.id)
            history.reports = try newest(reports)
            history.libraryCounts = try Self.countsByStatus(libraries, db)
            history.photoCounts = try Self.countsByStatus(photos, db)
            history.reportCounts = try Self.countsByStatus(reports, db)
            return history
        }
    }

    /// Rows of a table that meet conditions: its name, the conditions as SQL, their arguments.
    private typealias Selection = (table: String, conditions: String, arguments: StatementArguments)

    /// What follows `FROM table` to read the `limit` newest rows of `selection` (in `status` when
    /// given), and its arguments.
    private static func newest(_ selection: Selection, status: String?, _ limit: Int) -> (tail: String, arguments: StatementArguments) {
        var arguments = selection.arguments
        if let status { arguments += [status] }
        arguments += [limit]
        let tail = "WHERE \(selection.conditions)\(status == nil ? "" : " AND status = ?") ORDER BY createdAt DESC, id DESC LIMIT ?"
        return (tail, arguments)
    }

    private static func countsByStatus(_ selection: Selection, _ db: Database) throws -> [String: Int] {
        let sql = "SELECT status, COUNT(id) FROM \(selection.table) WHERE \(selection.conditions) GROUP BY status"
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: selection.arguments)
        return Dictionary(rows.map { ($0[0] as String, $0[1] as Int) }, uniquingKeysWith: +)
    }

    /// `first`, then those of `second` not in it.
    private static func union<Item>(_ first: [Item], _ second: [Item], id: (Item) -> Int) -> [Item] {
        var seen = Set(first.map(id))
        return first + second.filter { seen.insert(id($0)).inserted }
    }
}
