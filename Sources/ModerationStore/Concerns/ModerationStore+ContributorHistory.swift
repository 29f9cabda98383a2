import Foundation
import GRDB
import ModerationVocabulary

/// What one account sent before, as the mirror holds it, newest first: the libraries and
/// photos they submitted and the reports they made.
public struct ContributorHistory: Sendable {
    public var libraries: [MirrorLibrary] = []
    public var photos: [MirrorPhoto] = []
    public var reports: [MirrorReport] = []

    public init() {}
}

extension ModerationStore {
    /// The account's items other than the ones named, at most `limit` of each kind, in one read
    /// (each on an index by account and time).
    public func contributorHistory(
        accountId: Int, excludingLibrary library: Int? = nil, excludingReport report: Int? = nil, limit: Int = 10
    ) async throws -> ContributorHistory {
        try await writer.read { db in
            var history = ContributorHistory()
            history.libraries =
                try MirrorLibrary
                .filter(MirrorLibrary.Columns.submitterId == accountId && MirrorLibrary.Columns.goneAt == nil && MirrorLibrary.Columns.id != (library ?? -1))
                .order(MirrorLibrary.Columns.createdAt.desc, MirrorLibrary.Columns.id.desc)
                .limit(limit)
                .fetchAll(db)
            history.photos =
                try MirrorPhoto
                .filter(MirrorPhoto.Columns.submitterId == accountId && MirrorPhoto.Columns.goneAt == nil)
                .order(MirrorPhoto.Columns.createdAt.desc, MirrorPhoto.Columns.id.desc)
                .limit(limit)
                .fetchAll(db)
            history.reports =
                try MirrorReport
                .filter(MirrorReport.Columns.reporterId == accountId && MirrorReport.Columns.goneAt == nil && MirrorReport.Columns.id != (report ?? -1))
                .order(MirrorReport.Columns.createdAt.desc, MirrorReport.Columns.id.desc)
                .limit(limit)
                .fetchAll(db)
            return history
        }
    }
}
