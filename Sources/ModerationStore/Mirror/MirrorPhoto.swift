import Foundation
import GRDB
import ModerationVocabulary

/// One community photo as the mirror keeps it, with the summary of its library.
public struct MirrorPhoto: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "mirrorPhoto"

    public var id: Int
    public var libraryId: Int
    public var librarySlug: String
    public var libraryName: String
    public var libraryCity: String
    public var libraryCountry: String
    public var libraryStatus: LibraryStatus
    public var submitterId: Int?
    public var submitterUsername: String?
    public var caption: String
    public var photoUrl: String
    public var thumbnailUrl: String
    public var status: PhotoStatus
    public var createdAt: Date
    public var lastConfirmedAt: Date
    /// As `MirrorReport.missedPasses`: photos have no detail read either.
    public var missedPasses: Int
    public var goneAt: Date?

    public init(
        id: Int, libraryId: Int, librarySlug: String, libraryName: String, libraryCity: String, libraryCountry: String,
        libraryStatus: LibraryStatus, submitterId: Int?, submitterUsername: String?, caption: String, photoUrl: String,
        thumbnailUrl: String, status: PhotoStatus, createdAt: Date, lastConfirmedAt: Date
    ) {
        self.id = id
        self.libraryId = libraryId
        self.librarySlug = librarySlug
        self.libraryName = libraryName
        self.libraryCity = libraryCity
        self.libraryCountry = libraryCountry
        self.libraryStatus = libraryStatus
        self.submitterId = submitterId
        self.submitterUsername = submitterUsername
        self.caption = caption
        self.photoUrl = photoUrl
        self.thumbnailUrl = thumbnailUrl
        self.status = status
        self.createdAt = createdAt
        self.lastConfirmedAt = lastConfirmedAt
        self.missedPasses = 0
        self.goneAt = nil
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let libraryId = Column(CodingKeys.libraryId)
        public static let submitterId = Column(CodingKeys.submitterId)
        public static let status = Column(CodingKeys.status)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let lastConfirmedAt = Column(CodingKeys.lastConfirmedAt)
        public static let missedPasses = Column(CodingKeys.missedPasses)
        public static let goneAt = Column(CodingKeys.goneAt)
    }
}
