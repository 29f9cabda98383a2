import Foundation
import GRDB
import ModerationVocabulary

/// One library as the mirror keeps it: the full moderation record and when the backend
/// last confirmed it.
public struct MirrorLibrary: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "mirrorLibrary"

    public var id: Int
    public var slug: String
    public var name: String { didSet { refreshKeys() } }
    /// `name` folded for duplicate checks (see `LibraryNameKey`).
    public private(set) var normalizedName: String
    /// Name, address and city folded for search (`SearchFolding`), indexed by `mirrorLibrarySearch`.
    public private(set) var searchText: String
    public var description: String
    public var address: String { didSet { refreshKeys() } }
    public var city: String { didSet { refreshKeys() } }
    public var country: String
    public var postalCode: String
    public var lat: Double
    public var lng: Double
    public var photoUrl: String
    public var thumbnailUrl: String
    public var status: LibraryStatus
    public var rejectionReason: String
    public var submitterId: Int?
    public var submitterUsername: String?
    public var createdAt: Date
    public var lastConfirmedAt: Date
    /// When a detail read answered 404 for it; `nil` while it exists.
    public var goneAt: Date?
    /// Where the record came from (an import's name; "" for submissions): the list filters by it.
    public var source: String
    /// The backend's whole record as JSON, for the library's page; `nil` for rows written before v8.
    public var record: Data?

    public init(
        id: Int, slug: String, name: String, description: String, address: String, city: String, country: String,
        postalCode: String, lat: Double, lng: Double, photoUrl: String, thumbnailUrl: String, status: LibraryStatus,
        rejectionReason: String, submitterId: Int?, submitterUsername: String?, createdAt: Date, lastConfirmedAt: Date,
        source: String = "", record: Data? = nil
    ) {
        self.id = id
        self.slug = slug
        self.name = name
        self.normalizedName = LibraryNameKey.normalize(name)
        self.searchText = SearchFolding.libraryText(name: name, address: address, city: city)
        self.description = description
        self.address = address
        self.city = city
        self.country = country
        self.postalCode = postalCode
        self.lat = lat
        self.lng = lng
        self.photoUrl = photoUrl
        self.thumbnailUrl = thumbnailUrl
        self.status = status
        self.rejectionReason = rejectionReason
        self.submitterId = submitterId
        self.submitterUsername = submitterUsername
        self.createdAt = createdAt
        self.lastConfirmedAt = lastConfirmedAt
        self.goneAt = nil
        self.source = source
        self.record = record
    }

    /// Read by column, not through `Decodable`: a queue page reads fifty at a time, and the
    /// decoder was a sixth of its cost (docs/benchmarks.md, issue 48). A missing or NULL column
    /// where a value is required throws, as the decoder did; so does a status not known here.
    public init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        slug = try row.decode(forColumn: "slug")
        name = try row.decode(forColumn: "name")
        normalizedName = try row.decode(forColumn: "normalizedName")
        searchText = try row.decode(forColumn: "searchText")
        description = try row.decode(forColumn: "description")
        address = try row.decode(forColumn: "address")
        city = try row.decode(forColumn: "city")
        country = try row.decode(forColumn: "country")
        postalCode = try row.decode(forColumn: "postalCode")
        lat = try row.decode(forColumn: "lat")
        lng = try row.decode(forColumn: "lng")
        photoUrl = try row.decode(forColumn: "photoUrl")
        thumbnailUrl = try row.decode(forColumn: "thumbnailUrl")
        status = try Self.status(try row.decode(forColumn: "status"))
        rejectionReason = try row.decode(forColumn: "rejectionReason")
        submitterId = try row.decode(forColumn: "submitterId")
        submitterUsername = try row.decode(forColumn: "submitterUsername")
        createdAt = try row.decode(forColumn: "createdAt")
        lastConfirmedAt = try row.decode(forColumn: "lastConfirmedAt")
        goneAt = try row.decode(forColumn: "goneAt")
        source = try row.decode(forColumn: "source")
        record = try row.decode(forColumn: "record")
    }

    /// Every column but the whole record, in the order `init(listedRow:)` reads them.
    static let listedColumns = [
        "id", "slug", "name", "normalizedName", "searchText", "description", "address", "city", "country", "postalCode", "lat", "lng",
        "photoUrl", "thumbnailUrl", "status", "rejectionReason", "submitterId", "submitterUsername", "createdAt", "lastConfirmedAt",
        "goneAt", "source",
    ].joined(separator: ", ")

    /// A row of `listedColumns`, read by position, `record` nil: a list reads fifty at a time,
    /// and finding each column by its name was most of reading one. A NULL or a status not known
    /// here throws, as in `init(row:)`; the columns must be `listedColumns`, in their order.
    init(listedRow row: Row) throws {
        id = try row.decode(atIndex: 0)
        slug = try row.decode(atIndex: 1)
        name = try row.decode(atIndex: 2)
        normalizedName = try row.decode(atIndex: 3)
        searchText = try row.decode(atIndex: 4)
        description = try row.decode(atIndex: 5)
        address = try row.decode(atIndex: 6)
        city = try row.decode(atIndex: 7)
        country = try row.decode(atIndex: 8)
        postalCode = try row.decode(atIndex: 9)
        lat = try row.decode(atIndex: 10)
        lng = try row.decode(atIndex: 11)
        photoUrl = try row.decode(atIndex: 12)
        thumbnailUrl = try row.decode(atIndex: 13)
        status = try Self.status(try row.decode(atIndex: 14))
        rejectionReason = try row.decode(atIndex: 15)
        submitterId = try row.decode(atIndex: 16)
        submitterUsername = try row.decode(atIndex: 17)
        createdAt = try row.decode(atIndex: 18)
        lastConfirmedAt = try row.decode(atIndex: 19)
        goneAt = try row.decode(atIndex: 20)
        source = try row.decode(atIndex: 21)
        record = nil
    }

    /// A stored status, or the error the decoder gave for one not known here.
    private static func status(_ text: String) throws -> LibraryStatus {
        guard let status = LibraryStatus(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.status], debugDescription: "Unknown library status '\(text)'"))
        }
        return status
    }

    /// The folded copies follow the fields they are made from.
    private mutating func refreshKeys() {
        normalizedName = LibraryNameKey.normalize(name)
        searchText = SearchFolding.libraryText(name: name, address: address, city: city)
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let slug = Column(CodingKeys.slug)
        public static let name = Column(CodingKeys.name)
        public static let address = Column(CodingKeys.address)
        public static let country = Column(CodingKeys.country)
        public static let source = Column(CodingKeys.source)
        public static let normalizedName = Column(CodingKeys.normalizedName)
        public static let searchText = Column(CodingKeys.searchText)
        public static let city = Column(CodingKeys.city)
        public static let lat = Column(CodingKeys.lat)
        public static let lng = Column(CodingKeys.lng)
        public static let status = Column(CodingKeys.status)
        public static let submitterId = Column(CodingKeys.submitterId)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let lastConfirmedAt = Column(CodingKeys.lastConfirmedAt)
        public static let goneAt = Column(CodingKeys.goneAt)
    }
}
