import Foundation
import GRDB
import ModerationVocabulary

extension ModerationStore {
    /// A `mirrorLibrary` row's `ConcernRank` in SQL, from the stored reasons of waiting libraries.
    static let libraryRank = """
        CASE WHEN id IN (SELECT libraryId FROM libraryConcern WHERE strength = 'strong') THEN 0 \
        WHEN id IN (SELECT libraryId FROM libraryConcern) THEN 1 ELSE 2 END
        """
    /// "Needs a look first": by rank, then oldest first.
    static let libraryRankOrdering = "\(libraryRank), createdAt, id"
    static let libraryRankOrderingReversed = "\(libraryRank) DESC, createdAt DESC, id DESC"

    /// Each library's rank by id: a waiting one's from its reasons now, a decided one's from
    /// its reasons as they stood when it was decided (so a row decided in place keeps its place).
    public func concernRanks(of libraries: [MirrorLibrary]) async throws -> [Int: ConcernRank] {
        guard !libraries.isEmpty else { return [:] }
        return try readNow { db in try Self.concernRanks(of: libraries, db) }
    }

    static func concernRanks(of libraries: [MirrorLibrary], _ db: Database) throws -> [Int: ConcernRank] {
        let ids = libraries.map(\.id)
        func strengths(_ table: String) throws -> [Int: [String]] {
            let rows = try Row.fetchAll(
                db, sql: "SELECT libraryId, strength FROM \(table) WHERE libraryId IN (\(databaseQuestionMarks(count: ids.count)))",
                arguments: StatementArguments(ids))
            return Dictionary(grouping: rows, by: { $0["libraryId"] as Int }).mapValues { $0.map { $0["strength"] as String } }
        }
        let now = try strengths("libraryConcern")
        let decided = try strengths("decidedLibraryConcern")
        var ranks: [Int: ConcernRank] = [:]
        for library in libraries {
            // Reasons are worked out a minute apart: until then a just-decided library still has them.
            let stood = library.status == .pending ? now[library.id] : now[library.id] ?? decided[library.id]
            ranks[library.id] = ConcernRank(strengths: stood ?? [])
        }
        return ranks
    }
}

/// A reason a library had when it left the queue, and how it left (approved, rejected, gone).
public struct DecidedLibraryConcern: Sendable, Equatable, FetchableRecord, Decodable {
    public var libraryId: Int
    public var kind: String
    public var strength: String
    public var outcome: String
    public var recordedAt: Date
}

extension ModerationStore {
    /// The reasons of libraries that left the queue since `date`, oldest first: what each
    /// reason caught, and how those libraries were decided.
    public func decidedLibraryConcerns(since date: Date) async throws -> [DecidedLibraryConcern] {
        try readNow { db in
            try DecidedLibraryConcern.fetchAll(
                db, sql: "SELECT * FROM decidedLibraryConcern WHERE recordedAt >= ? ORDER BY recordedAt, libraryId, kind", arguments: [date])
        }
    }

    /// The reasons library `id` had when it left the queue, strong ones first.
    public func decidedLibraryConcerns(libraryId id: Int) async throws -> [DecidedLibraryConcern] {
        try readNow { db in
            try DecidedLibraryConcern.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM decidedLibraryConcern WHERE libraryId = ? ORDER BY strength = 'strong' DESC, kind"), arguments: [id])
        }
    }
}

/// How often one kind of reason came up: libraries waiting with it now, and those that left
/// the queue with it since a date, and how many of those were rejected.
public struct ConcernFigures: Sendable, Equatable {
    public var waiting = 0
    public var decided = 0
    public var rejected = 0

    public init(waiting: Int = 0, decided: Int = 0, rejected: Int = 0) {
        self.waiting = waiting
        self.decided = decided
        self.rejected = rejected
    }
}

extension ModerationStore {
    /// Figures per kind of reason: waiting now, and decided since `date` (with the rejected among them).
    public func concernFigures(since date: Date) async throws -> [String: ConcernFigures] {
        try await writer.read { db in
            var figures: [String: ConcernFigures] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, count(DISTINCT libraryId) FROM libraryConcern GROUP BY kind") {
                figures[row[0], default: ConcernFigures()].waiting = row[1]
            }
            let decided = try Row.fetchAll(
                db,
                sql: """
                    SELECT kind, count(*), coalesce(sum(outcome = 'rejected'), 0) FROM decidedLibraryConcern
                    WHERE recordedAt >= ? AND outcome IN ('approved', 'rejected') GROUP BY kind
                    """, arguments: [date])
            for row in decided {
                figures[row[0], default: ConcernFigures()].decided = row[1]
                figures[row[0], default: ConcernFigures()].rejected = row[2]
            }
            return figures
        }
    }

    /// When the first decided library's reasons were recorded: figures reach no further back.
    public func firstDecidedConcernRecordedAt() async throws -> Date? {
        try await writer.read { db in try Date.fetchOne(db, sql: "SELECT min(recordedAt) FROM decidedLibraryConcern") }
    }
}
