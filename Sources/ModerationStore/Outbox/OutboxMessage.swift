import Foundation
import GRDB

/// A push notification to deliver: stored with the decision that caused it, sent later.
public struct OutboxMessage: Codable, FetchableRecord, PersistableRecord, Sendable, Identifiable {
    public static let databaseTableName = "outboxMessage"

    /// A UUID, also the `apns-id`.
    public var id: String
    public var actionId: Int64
    public var recipientUserId: Int
    /// `library.approved`, `photo.rejected`, …
    public var eventType: String
    /// The APNs JSON payload, at most 4096 bytes.
    public var payload: String
    /// The APNs request headers, as a JSON object.
    public var headers: String
    /// `pending` until delivery (a later piece) takes it.
    public var status: String
    public var attempts: Int
    public var createdAt: Date

    public init(id: String, actionId: Int64, recipientUserId: Int, eventType: String, payload: String, headers: String, createdAt: Date) {
        self.id = id
        self.actionId = actionId
        self.recipientUserId = recipientUserId
        self.eventType = eventType
        self.payload = payload
        self.headers = headers
        self.status = "pending"
        self.attempts = 0
        self.createdAt = createdAt
    }

    public enum Columns {
        static let status = Column(CodingKeys.status)
        static let eventType = Column(CodingKeys.eventType)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}
