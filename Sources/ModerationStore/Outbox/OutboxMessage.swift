import Foundation
import GRDB

/// A push notification to deliver: stored with the decision that caused it, sent later.
public struct OutboxMessage: Codable, FetchableRecord, PersistableRecord, Sendable, Identifiable {
    public static let databaseTableName = "outboxMessage"

    /// A UUID, also the `apns-id`.
    public var id: String
    public var actionId: Int64
    public var recipientUserId: Int
    public var eventType: EventType
    /// The APNs JSON payload, at most 4096 bytes.
    public var payload: String
    /// The APNs request headers, as a JSON object.
    public var headers: String
    public var status: State
    public var attempts: Int
    public var createdAt: Date

    public init(id: String, actionId: Int64, recipientUserId: Int, eventType: EventType, payload: String, headers: String, createdAt: Date) {
        self.id = id
        self.actionId = actionId
        self.recipientUserId = recipientUserId
        self.eventType = eventType
        self.payload = payload
        self.headers = headers
        self.status = .pending
        self.attempts = 0
        self.createdAt = createdAt
    }

    /// Where a message is on its way to its recipient.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Stored with its decision; delivery (a later piece) takes it from here.
        case pending
        case sent
        case failed
    }

    /// What happened that the recipient hears about; the raw value is the payload's `type`.
    public enum EventType: String, Codable, Sendable, CaseIterable {
        case libraryApproved = "library.approved"
        case libraryRejected = "library.rejected"
        case photoApproved = "photo.approved"
        case photoRejected = "photo.rejected"
        case reportResolved = "report.resolved"
    }

    public enum Columns {
        static let status = Column(CodingKeys.status)
        static let eventType = Column(CodingKeys.eventType)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}
