import Foundation
import GRDB
import ModerationVocabulary

/// One problem report as the mirror keeps it, with the summary of its library.
public struct MirrorReport: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "mirrorReport"

    public var id: Int
    public var libraryId: Int
    public var librarySlug: String
    public var libraryName: String
    public var libraryAddress: String
    public var libraryCity: String
    public var libraryCountry: String
    public var libraryStatus: LibraryStatus
    public var reporterId: Int?
    public var reporterUsername: String?
    public var reason: ReportReason
    public var details: String
    public var photoUrl: String
    public var status: ReportStatus
    public var createdAt: Date
    public var lastConfirmedAt: Date
    /// Complete passes over every status in a row that did not list it; two mean it is gone
    /// (the backend has no detail read for reports to confirm with).
    public var missedPasses: Int
    public var goneAt: Date?

    public init(
        id: Int, libraryId: Int, librarySlug: String, libraryName: String, libraryAddress: String, libraryCity: String,
        libraryCountry: String, libraryStatus: LibraryStatus, reporterId: Int?, reporterUsername: String?, reason: ReportReason,
        details: String, photoUrl: String, status: ReportStatus, createdAt: Date, lastConfirmedAt: Date
    ) {
        self.id = id
        self.libraryId = libraryId
        self.librarySlug = librarySlug
        self.libraryName = libraryName
        self.libraryAddress = libraryAddress
        self.libraryCity = libraryCity
        self.libraryCountry = libraryCountry
        self.libraryStatus = libraryStatus
        self.reporterId = reporterId
        self.reporterUsername = reporterUsername
        self.reason = reason
        self.details = details
        self.photoUrl = photoUrl
        self.status = status
        self.createdAt = createdAt
        self.lastConfirmedAt = lastConfirmedAt
        self.missedPasses = 0
        self.goneAt = nil
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let status = Column(CodingKeys.status)
        public static let reason = Column(CodingKeys.reason)
        public static let reporterId = Column(CodingKeys.reporterId)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let lastConfirmedAt = Column(CodingKeys.lastConfirmedAt)
        public static let missedPasses = Column(CodingKeys.missedPasses)
        public static let goneAt = Column(CodingKeys.goneAt)
    }
}
