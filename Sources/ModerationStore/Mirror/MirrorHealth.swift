import Foundation
import GRDB

/// Whether the backend answers the mirror's reads (one row): when it last did, and since
/// when every read has gone unanswered. Kept in the database so every console process on
/// it, and every page, tells the same story.
public struct MirrorHealth: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "mirrorHealth"

    /// Always 1: the table holds one row.
    var id: Int = 1
    /// The last time a read got an answer (a 429 counts: the backend is there).
    public var lastAnsweredAt: Date?
    /// The first unanswered read since the last answer; `nil` while the backend answers.
    public var unansweredSince: Date?

    public init(lastAnsweredAt: Date?, unansweredSince: Date?) {
        self.lastAnsweredAt = lastAnsweredAt
        self.unansweredSince = unansweredSince
    }
}

extension ModerationStore {
    /// Notes that the backend answered a read: any silence is over.
    public func noteMirrorAnswered(at now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO mirrorHealth (id, lastAnsweredAt, unansweredSince) VALUES (1, ?, NULL)
                    ON CONFLICT (id) DO UPDATE SET lastAnsweredAt = excluded.lastAnsweredAt, unansweredSince = NULL
                    """,
                arguments: [now])
        }
    }

    /// Notes a read the backend did not answer; the silence starts at the first one.
    public func noteMirrorUnanswered(at now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO mirrorHealth (id, lastAnsweredAt, unansweredSince) VALUES (1, NULL, ?)
                    ON CONFLICT (id) DO UPDATE SET unansweredSince = COALESCE(unansweredSince, excluded.unansweredSince)
                    """,
                arguments: [now])
        }
    }

    /// `nil` before the mirror's first read.
    public func mirrorHealth() async throws -> MirrorHealth? {
        try readOncePerChange(perChange.mirrorHealth) { db in try MirrorHealth.fetchOne(db, key: 1) }
    }
}
