import Foundation
import ModerationStore

/// Something that carries outbox messages to people: a spool directory, a webhook, or APNs.
public protocol OutboxTransport: Sendable {
    /// `spool`, `webhook` or `apns`: stored with each attempt.
    var name: String { get }

    /// Tries to deliver one message; answers one result per device tried (APNs), or one
    /// result for the whole message with an empty device token (spool, webhook). Never throws:
    /// every failure is a result with its reason in words.
    func deliver(_ delivery: OutboxDelivery) async -> [DeliveryResult]

    /// Called once when the dispatcher stops, so connections close cleanly.
    func shutdown() async
}

extension OutboxTransport {
    public func shutdown() async {}
}

/// One message on its way out, with the recipient's active devices it goes to.
public struct OutboxDelivery: Sendable {
    public let message: OutboxMessage
    /// The stored `apns-*` headers (`apns-id` is the message id).
    public let headers: [String: String]
    /// Active devices of the recipient still to reach (those a previous attempt reached are left out).
    public let devices: [Device]

    public init(message: OutboxMessage, headers: [String: String], devices: [Device]) {
        self.message = message
        self.headers = headers
        self.devices = devices
    }
}

/// What one try established, for one device or for the whole message.
public struct DeliveryResult: Sendable, Equatable {
    /// The device token tried; empty when the transport takes the whole message.
    public var deviceToken: String
    public var outcome: OutboxAttempt.Outcome
    /// The HTTP status answered, if there was one.
    public var httpStatus: Int?
    /// Why, in words a staff member can act on; empty on success.
    public var reason: String
    /// How long the other side asked us to wait (`Retry-After`), if it said.
    public var retryAfter: TimeInterval?
    /// Since when the token is no longer valid, when APNs said (the `timestamp` of a 410).
    public var invalidSince: Date?

    public init(
        deviceToken: String = "", outcome: OutboxAttempt.Outcome, httpStatus: Int? = nil, reason: String = "", retryAfter: TimeInterval? = nil,
        invalidSince: Date? = nil
    ) {
        self.deviceToken = deviceToken
        self.outcome = outcome
        self.httpStatus = httpStatus
        self.reason = reason
        self.retryAfter = retryAfter
        self.invalidSince = invalidSince
    }
}
