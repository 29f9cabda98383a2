import BookCornersAPI
import Foundation
import ModerationStore

/// The one JSON document the spool and webhook transports write for a message, so a
/// separate sender reads a spool file exactly as a webhook receiver reads a request body.
/// Keys are sorted and `version` only changes when a field changes meaning or goes away.
public struct OutboxEnvelope: Codable, Sendable, Equatable {
    /// Bumped only for a change a receiver must know about; added fields keep it.
    public static let currentVersion = 1

    public var version: Int
    /// The message id, also its `apns-id` and the webhook's `Idempotency-Key`.
    public var id: String
    /// `library.approved`, `photo.rejected`, … (the payload's `data.type`).
    public var eventType: String
    /// The Book Corners user the push is for.
    public var recipientUserId: Int
    /// The recipient's active devices at the time of the attempt.
    public var deviceTokens: [DeviceToken]
    /// The APNs request headers (`apns-id`, `apns-topic`, `apns-expiration`, …).
    public var headers: [String: String]
    /// The APNs payload, as a JSON object.
    public var payload: JSONValue
    public var createdAt: Date

    /// One device the message is for.
    public struct DeviceToken: Codable, Sendable, Equatable {
        public var token: String
        public var environment: Device.Environment

        public init(token: String, environment: Device.Environment) {
            self.token = token
            self.environment = environment
        }
    }

    enum CodingKeys: String, CodingKey {
        case version, id, headers, payload
        case eventType = "event_type"
        case recipientUserId = "recipient_user_id"
        case deviceTokens = "device_tokens"
        case createdAt = "created_at"
    }

    public init(
        id: String, eventType: String, recipientUserId: Int, deviceTokens: [DeviceToken], headers: [String: String],
        payload: JSONValue, createdAt: Date, version: Int = OutboxEnvelope.currentVersion
    ) {
        self.version = version
        self.id = id
        self.eventType = eventType
        self.recipientUserId = recipientUserId
        self.deviceTokens = deviceTokens
        self.headers = headers
        self.payload = payload
        self.createdAt = createdAt
    }

    /// The envelope of one delivery; fails when the stored payload is not a JSON object.
    public init(_ delivery: OutboxDelivery) throws(OutboxEnvelopeError) {
        let message = delivery.message
        guard let payload = JSONValue.parse(Data(message.payload.utf8)), case .object = payload else {
            throw .payloadNotJSON(messageID: message.id)
        }
        self.init(
            id: message.id, eventType: message.eventType.rawValue, recipientUserId: message.recipientUserId,
            deviceTokens: delivery.devices.map { DeviceToken(token: $0.token, environment: $0.environment) },
            headers: delivery.headers, payload: payload, createdAt: message.createdAt)
    }

    /// The bytes both transports write: sorted keys, UTC times with milliseconds.
    public func encoded() throws -> Data {
        try Self.encoder.encode(self)
    }

    /// Reads what `encoded()` wrote (a spool file, a webhook body).
    public static func decode(_ data: Data) throws -> OutboxEnvelope {
        try decoder.decode(OutboxEnvelope.self, from: data)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISOTime.string(date))
        }
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISOTime.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "created_at is not an ISO 8601 UTC time: \(text)")
            }
            return date
        }
        return decoder
    }
}

/// Why a message could not be put in an envelope.
public enum OutboxEnvelopeError: Error, Equatable, Sendable, CustomStringConvertible {
    case payloadNotJSON(messageID: String)

    public var description: String {
        switch self {
        case .payloadNotJSON(let id): "the stored payload of message \(id) is not a JSON object, so it cannot be sent; discard it"
        }
    }
}
