import Foundation
import GRDB

/// One try at delivering a message, to one device (APNs) or as a whole (spool, webhook).
public struct OutboxAttempt: Codable, FetchableRecord, MutablePersistableRecord, Sendable, Equatable {
    public static let databaseTableName = "outboxAttempt"

    public var id: Int64?
    public var messageId: String
    /// The device token tried; empty when the transport takes the message as a whole.
    public var deviceToken: String
    /// `spool`, `webhook` or `apns`.
    public var transport: String
    /// The HTTP status answered, if any.
    public var httpStatus: Int?
    public var outcome: Outcome
    /// Why, in words (APNs' reason, a timeout, a file error); empty on success.
    public var reason: String
    public var attemptedAt: Date

    public init(
        messageId: String, deviceToken: String, transport: String, httpStatus: Int?, outcome: Outcome, reason: String, attemptedAt: Date
    ) {
        self.messageId = messageId
        self.deviceToken = deviceToken
        self.transport = transport
        self.httpStatus = httpStatus
        self.outcome = outcome
        self.reason = reason
        self.attemptedAt = attemptedAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// What one attempt established.
    public enum Outcome: String, Codable, Sendable, CaseIterable {
        /// Taken by the device's push service (or the spool, or the webhook).
        case delivered
        /// A passing problem (timeout, 429, 5xx): tried again later.
        case retry
        /// Refused for good for this message (413, other 4xx).
        case failed
        /// The device token is gone (400 BadDeviceToken, 410 Unregistered): disabled, not retried.
        case deviceDisabled = "device-disabled"
    }
}
