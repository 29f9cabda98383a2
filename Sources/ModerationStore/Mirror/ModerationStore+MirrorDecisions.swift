import Foundation
import GRDB
import ModerationVocabulary

extension ModerationStore {
    /// Writes a decision's outcome into the mirror at once (the console's applied status, or the
    /// status a conflict found), so the page the moderator returns to shows it before the next
    /// read confirms it. Only a row still in `before` changes, and the summary's waiting counts
    /// follow it in the same transaction. `reason`: a rejection's reason; `nil` keeps the row's.
    /// Answers whether the row changed.
    @discardableResult
    public func mirrorDecisionOutcome(
        kind: ModerationAction.TargetKind, itemID: Int, from before: ItemStatus, to after: ItemStatus, reason: String?, at now: Date
    ) async throws -> Bool {
        try await writer.write { db in
            switch kind {
            case .library:
                // The backend records the reason of a rejection and keeps it when a library leaves `rejected`.
                try db.execute(
                    sql: """
                        UPDATE mirrorLibrary SET status = ?, lastConfirmedAt = ?,
                            rejectionReason = CASE WHEN ? = 'rejected' THEN COALESCE(?, rejectionReason) ELSE rejectionReason END
                        WHERE id = ? AND status = ? AND goneAt IS NULL
                        """,
                    arguments: [after.rawValue, now, after.rawValue, reason, itemID, before.rawValue])
            case .report:
                try db.execute(
                    sql: "UPDATE mirrorReport SET status = ?, lastConfirmedAt = ? WHERE id = ? AND status = ? AND goneAt IS NULL",
                    arguments: [after.rawValue, now, itemID, before.rawValue])
            case .photo:
                try db.execute(
                    sql: "UPDATE mirrorPhoto SET status = ?, lastConfirmedAt = ? WHERE id = ? AND status = ? AND goneAt IS NULL",
                    arguments: [after.rawValue, now, itemID, before.rawValue])
            }
            guard db.changesCount == 1 else { return false }
            let waiting: (column: String, status: ItemStatus) =
                switch kind {
                case .library: ("pendingLibraries", .pending)
                case .report: ("openReports", .open)
                case .photo: ("pendingPhotos", .pending)
                }
            let delta = (after == waiting.status ? 1 : 0) - (before == waiting.status ? 1 : 0)
            if delta != 0 {
                try db.execute(
                    sql: """
                        UPDATE mirrorSummary SET \(waiting.column) = MAX(0, \(waiting.column) + ?), totalPending = MAX(0, totalPending + ?)
                        WHERE id = 1
                        """,
                    arguments: [delta, delta])
            }
            return true
        }
    }
}
