import Foundation
import ModerationStore

/// What APNs said to one push: its status, its `reason` and any `Retry-After`, turned into
/// the outcome Apple's documentation calls for.
struct APNsAnswer: Sendable, Equatable {
    let status: Int
    /// APNs' `reason` (`BadDeviceToken`, `Unregistered`, …); empty on success or without a body.
    let reason: String
    let retryAfter: TimeInterval?
    /// A 410's `timestamp`: since when APNs knows the token is no longer valid.
    let invalidSince: Date?

    /// APNs' JSON error body: `{"reason": "…", "timestamp": …}` (milliseconds since 1970, on 410).
    private struct Body: Decodable {
        let reason: String?
        let timestamp: Double?
    }

    init(status: Int, reason: String, retryAfter: TimeInterval? = nil, invalidSince: Date? = nil) {
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
        self.invalidSince = invalidSince
    }

    /// Reads an answer's body (which may be empty or not JSON) and `Retry-After` header.
    init(status: Int, body: Data, retryAfterHeader: String?) {
        let decoded = try? JSONDecoder().decode(Body.self, from: body)
        // A time APNs gave that is not a plausible one (negative, or not finite) is left out.
        let since = decoded?.timestamp.flatMap { $0.isFinite && $0 > 0 ? Date(timeIntervalSince1970: $0 / 1000) : nil }
        self.init(
            status: status, reason: decoded?.reason ?? "", retryAfter: retryAfterHeader.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) },
            invalidSince: status == 410 ? since : nil)
    }

    /// APNs wants a newer provider token: the one case the transport renews and retries.
    var isExpiredProviderToken: Bool { status == 403 && reason == "ExpiredProviderToken" }

    /// The result stored for the device.
    func result(for deviceToken: String) -> DeliveryResult {
        DeliveryResult(deviceToken: deviceToken, outcome: outcome, httpStatus: status, reason: words, retryAfter: retryAfter, invalidSince: invalidSince)
    }

    var outcome: OutboxAttempt.Outcome {
        switch status {
        case 200: .delivered
        // The token will never work again; Apple asks not to retry these.
        case 410: .deviceDisabled
        case 400 where reason == "BadDeviceToken": .deviceDisabled
        case 429, 500...599: .retry
        // Still expired after one renewal (or renewal was too soon): wait rather than give up.
        case 403 where reason == "ExpiredProviderToken": .retry
        // Tokens renewed too often (two consoles with one key): passing, so wait and try again.
        case 403 where reason == "TooManyProviderTokenUpdates": .retry
        default: .failed
        }
    }

    /// APNs' reason first (staff search for it), then what it means and what to do.
    private var words: String {
        guard status != 200 else { return "" }
        let named = reason.isEmpty ? "HTTP \(status)" : "\(reason) (HTTP \(status))"
        return "APNs answered \(named): \(Self.meaning[reason] ?? Self.meaning(status: status))"
    }

    private static let meaning: [String: String] = [
        "Unregistered":
            "the app is no longer installed or allowed to notify on this device; nothing is pushed to it until Book Corners reports it registered again.",
        "ExpiredToken": "the device token has expired; the device is disabled.",
        "BadDeviceToken":
            "the device token is not valid for this environment (most often it belongs to the other one); the other environment is tried next, and an import brings it back.",
        "DeviceTokenNotForTopic": "the device token belongs to another app; check the device's environment and the topic.",
        "PayloadTooLarge": "the notification is over 4096 bytes; it cannot be sent as it is.",
        "TopicDisallowed": "the key's team may not send to this topic; check the configured bundle id.",
        "BadTopic": "the topic is not valid; check the configured bundle id.",
        "MissingTopic": "no topic was sent; set the APNs topic (the app's bundle id).",
        "InvalidProviderToken": "the signing key, key id or team id is wrong; check the APNs key settings.",
        "MissingProviderToken": "no provider token was sent; check the APNs key settings.",
        "ExpiredProviderToken": "the provider token is too old even after renewal; check the server's clock.",
        "TooManyProviderTokenUpdates": "the provider token changed too often.",
        "TooManyRequests": "too many pushes to this device.",
        "InternalServerError": "APNs had an internal error.",
        "ServiceUnavailable": "APNs is unavailable.",
        "Shutdown": "the APNs server is shutting down.",
    ]

    private static func meaning(status: Int) -> String {
        switch status {
        case 429: "too many requests."
        case 500...599: "APNs is having trouble."
        default: "the push was refused; check the APNs settings and the message."
        }
    }
}
