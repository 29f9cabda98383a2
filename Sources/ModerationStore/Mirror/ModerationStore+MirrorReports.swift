import Foundation
import GRDB
import ModerationVocabulary

extension ModerationStore {
    /// One mirrored report by its backend id; nil when the mirror does not know it (or found it gone).
    public func mirroredReport(id: Int) async throws -> MirrorReport? {
        try readNow { db in
            try MirrorReport.filter(MirrorReport.Columns.id == id && MirrorReport.Columns.goneAt == nil).fetchOne(db)
        }
    }

    /// The other reports on a library, newest first, at most `limit`: a report's page lists them.
    public func mirroredReports(libraryId: Int, excluding id: Int, limit: Int = 20) async throws -> [MirrorReport] {
        try readNow { db in
            try MirrorReport
                .filter(Column("libraryId") == libraryId && MirrorReport.Columns.id != id && MirrorReport.Columns.goneAt == nil)
                .order(MirrorReport.Columns.createdAt.desc, MirrorReport.Columns.id.desc)
                .limit(limit)
                .fetchAll(db)
        }
    }
}
