import Foundation
import GRDB
import ModerationVocabulary

/// A sandbox account.
struct UserRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "user"
    var id: Int
    var username: String
    var email: String
    var passwordSalt: String
    var passwordHash: String
    var isStaff: Bool
    var isSocialOnly: Bool
}

/// A library in any moderation status.
struct LibraryRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "library"
    var id: Int
    var slug: String
    var name: String
    var description: String
    var photoUrl: String
    var thumbnailUrl: String
    var lat: Double
    var lng: Double
    var address: String
    var city: String
    var country: String
    var postalCode: String
    var wheelchairAccessible: String
    var capacity: Int?
    var isIndoor: Bool?
    var isLit: Bool?
    var website: String
    var contact: String
    var source: String
    var `operator`: String
    var brand: String
    var createdAt: Date
    var status: LibraryStatus
    var rejectionReason: String
    var createdById: Int?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let slug = Column(CodingKeys.slug)
        static let name = Column(CodingKeys.name)
        static let description = Column(CodingKeys.description)
        static let address = Column(CodingKeys.address)
        static let city = Column(CodingKeys.city)
        static let country = Column(CodingKeys.country)
        static let postalCode = Column(CodingKeys.postalCode)
        static let photoUrl = Column(CodingKeys.photoUrl)
        static let thumbnailUrl = Column(CodingKeys.thumbnailUrl)
        static let lat = Column(CodingKeys.lat)
        static let lng = Column(CodingKeys.lng)
        static let source = Column(CodingKeys.source)
        static let status = Column(CodingKeys.status)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}

/// A problem report about a library.
struct ReportRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "report"
    var id: Int
    var libraryId: Int
    var createdById: Int?
    var reason: String
    var details: String
    var photoUrl: String
    var status: ReportStatus
    var createdAt: Date

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let reason = Column(CodingKeys.reason)
        static let status = Column(CodingKeys.status)
        static let photoUrl = Column(CodingKeys.photoUrl)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}

/// A community photo proposed for a library.
struct PhotoRecord: Codable, FetchableRecord, PersistableRecord, Sendable {
    static let databaseTableName = "photo"
    var id: Int
    var libraryId: Int
    var createdById: Int?
    var caption: String
    var photoUrl: String
    var thumbnailUrl: String
    var status: PhotoStatus
    var createdAt: Date

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let libraryId = Column(CodingKeys.libraryId)
        static let status = Column(CodingKeys.status)
        static let photoUrl = Column(CodingKeys.photoUrl)
        static let thumbnailUrl = Column(CodingKeys.thumbnailUrl)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}
