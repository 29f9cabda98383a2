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
    /// The demo's page of pushes its APNs stand-in received; empty elsewhere.
    var watchURL = ""
    let nudge: @Sendable () -> Void

    static let offText = "Off: nothing is delivered; messages wait in the outbox."
}
