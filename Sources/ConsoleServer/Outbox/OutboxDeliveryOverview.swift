import Foundation
import ModerationStore

/// What the Outbox page and the dashboard say about delivery: where messages go, which are
/// recorded only, and how to wake the dispatcher after a staff member's Retry now.
struct OutboxDeliveryOverview: Sendable {
    /// One line: "APNs (production api.push.apple.com, sandbox …)", "A spool directory: …", …
    let transport: String
    /// No dispatcher runs (`--outbox-transport off`): messages wait.
    let isOff: Bool
    let policy: DeliveryPolicy
    let nudge: @Sendable () -> Void

    static let off = OutboxDeliveryOverview(
        transport: "Off: nothing is delivered; messages wait in the outbox.", isOff: true, policy: .standard, nudge: {})
}
