import Foundation
import ModerationStore

/// What the dashboard says when pushes are not reaching people, in words a staff member can
/// act on; nil when delivery is fine.
enum DeliveryWarning {
    /// The window in which failures without a single success count as "keeps failing".
    static let window: TimeInterval = 15 * 60
    /// Failed attempts in the window, with no delivery, before the dashboard warns.
    static let failuresBeforeWarning = 3

    static func text(health: OutboxHealth, isOff: Bool) -> String? {
        var parts: [String] = []
        if health.recentFailures >= failuresBeforeWarning, health.recentDeliveries == 0 {
            parts.append(
                "Push delivery keeps failing: none of the last \(health.recentFailures) attempts (15 min) got through. "
                    + "Last answer: \(health.lastFailureReason.isEmpty ? "none given" : health.lastFailureReason) \(advice(for: health.lastFailureReason))")
        }
        let failed = health.count(.failed)
        if failed > 0 {
            parts.append(
                "\(CountText.of(failed, "message", "messages")) failed for good and \(CountText.noun(failed, "waits", "wait")) for a person: retry or discard on the Outbox page."
            )
        }
        if isOff, health.count(.pending) > 0 {
            parts.append("Delivery is off (--outbox-transport off): \(CountText.of(health.count(.pending), "message waits", "messages wait")) in the outbox.")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// What to check, from the words of the last failure.
    static func advice(for reason: String) -> String {
        let lowered = reason.lowercased()
        if lowered.contains("providertoken") {
            return
                "Apple refuses the console's signing key: check the key file, key id and team id (--apns-key-file, --apns-key-id, --apns-team-id); the key may have been revoked in the Apple Developer account."
        }
        if lowered.contains("topic") {
            return "Apple refuses the app's bundle id: check --apns-topic."
        }
        if lowered.contains("certificate") || lowered.contains("tls") {
            return "The push service's certificate is not trusted: check --apns-ca-file, or the proxy in between."
        }
        if lowered.contains("401") || lowered.contains("403") || lowered.contains("signature") {
            return "The receiver refuses our requests: check its address and the shared secret."
        }
        return "Messages are kept and retried with growing pauses; nothing is lost. The Outbox shows each attempt."
    }
}
