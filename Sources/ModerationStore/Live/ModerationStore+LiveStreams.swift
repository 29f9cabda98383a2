import Foundation
import GRDB

/// Open live streams, counted per person across every console process on the database.
extension ModerationStore {
    /// Records the stream `ticket` of `staffId` unless they already hold `limit` streams seen
    /// since `liveSince` (older rows are a stopped process's, and are removed); answers whether it was.
    public func openLiveStream(ticket: String, staffId: Int, limit: Int, liveSince: Date, now: Date) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM liveStream WHERE seenAt < ?", arguments: [liveSince])
            let open = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM liveStream WHERE staffId = ?", arguments: [staffId]) ?? 0
            guard open < limit else { return false }
            try db.execute(sql: "INSERT INTO liveStream (ticket, staffId, seenAt) VALUES (?, ?, ?)", arguments: [ticket, staffId, now])
            return true
        }
    }

    /// Notes that these streams are still open.
    public func touchLiveStreams(_ tickets: [String], now: Date) async throws {
        guard !tickets.isEmpty else { return }
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE liveStream SET seenAt = ? WHERE ticket IN (\(databaseQuestionMarks(count: tickets.count)))",
                arguments: StatementArguments([now] + tickets))
        }
    }

    /// The stream `ticket` has ended.
    public func closeLiveStream(ticket: String) async throws {
        try await writer.write { db in try db.execute(sql: "DELETE FROM liveStream WHERE ticket = ?", arguments: [ticket]) }
    }
}
