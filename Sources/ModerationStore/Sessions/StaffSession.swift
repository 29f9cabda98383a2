import Foundation
import GRDB

/// A signed-in staff member's server-side session.
public struct StaffSession: Codable, FetchableRecord, PersistableRecord, Sendable {
    public static let databaseTableName = "session"

    /// SHA-256 (hex) of the cookie value.
    public var id: String
    public var staffId: Int
    public var username: String
    public var email: String
    public var csrfToken: String
    public var sealedAccessToken: Data
    public var sealedRefreshToken: Data
    public var clientAddress: String
    public var userAgent: String
    public var createdAt: Date
    public var lastSeenAt: Date
    /// The absolute end of the session, whatever the activity.
    public var expiresAt: Date
    /// A one-time message for the next page.
    public var flash: String?

    public init(
        id: String, staffId: Int, username: String, email: String, csrfToken: String, sealedAccessToken: Data,
        sealedRefreshToken: Data, clientAddress: String, userAgent: String, createdAt: Date, lastSeenAt: Date,
        expiresAt: Date, flash: String?
    ) {
        self.id = id
        self.staffId = staffId
        self.username = username
        self.email = email
        self.csrfToken = csrfToken
        self.sealedAccessToken = sealedAccessToken
        self.sealedRefreshToken = sealedRefreshToken
        self.clientAddress = clientAddress
        self.userAgent = userAgent
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
        self.flash = flash
    }

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let staffId = Column(CodingKeys.staffId)
        static let lastSeenAt = Column(CodingKeys.lastSeenAt)
        static let expiresAt = Column(CodingKeys.expiresAt)
    }
}
