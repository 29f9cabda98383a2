import Foundation
import ModerationStore
import Mustache

/// The outbox: messages by state and type, the ones held back, and the delivery policy and transport.
struct OutboxPage: MustacheParent {
    /// How many messages are in one state, for the summary line.
    struct Count: MustacheParent {
        let state: String
        let label: String
        let count: Int

        init(state: OutboxMessage.State, count: Int) {
            self.state = state.rawValue
            label = state.label
            self.count = count
        }

        func child(named key: String) -> Any? {
            switch key {
            case "state": state
            case "label": label
            case "count": count
            default: nil
            }
        }
    }

    /// What the delivery policy does with one event type.
    struct PolicyRow: MustacheParent {
        let type: String
        /// The machine name, which the policy setting uses.
        let code: String
        let rule: String
        let explanation: String

        init(type: OutboxMessage.EventType, rule: DeliveryPolicy.Rule) {
            self.type = type.label
            code = type.rawValue
            self.rule = rule == .deliver ? "delivered" : "recorded only"
            explanation =
                switch rule {
                case .deliver: "The console delivers it."
                case .recordedOnly:
                    "Book Corners pushes this itself (approved from pending, or rejected with a reason): ours is kept for the record, marked sent by Book Corners. When Book Corners does not push it, the console delivers it."
                }
        }

        func child(named key: String) -> Any? {
            switch key {
            case "type": type
            case "code": code
            case "rule": rule
            case "explanation": explanation
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let typeOptions: [FilterOption]
    let rows: [OutboxRow]
    let isEmpty: Bool
    let counts: [Count]
    let transport: String
    let deliveryOff: Bool
    /// The demo's page of pushes the APNs stand-in received; empty elsewhere.
    let watchURL: String
    let hasWatchURL: Bool
    let policy: [PolicyRow]
    let filterURL = SiteURL.outbox.path
    /// Messages a restore held: each waits for a staff member to send or discard it.
    let held: [HeldRow]
    let hasHeld: Bool

    /// A held message with the two forms that move it (each asks for confirmation first).
    struct HeldRow: MustacheParent {
        let row: OutboxRow
        let sendURL: String
        let discardURL: String

        func child(named key: String) -> Any? {
            switch key {
            case "row": row
            case "sendURL": sendURL
            case "discardURL": discardURL
            default: nil
            }
        }
    }

    init(
        layout: LayoutModel, statusOptions: [FilterOption], typeOptions: [FilterOption], rows: [OutboxRow], isEmpty: Bool, counts: [Count],
        transport: String, deliveryOff: Bool, watchURL: String, policy: [PolicyRow], held: [OutboxRow] = []
    ) {
        self.held = held.map { HeldRow(row: $0, sendURL: SiteURL.outboxRetry($0.id).path, discardURL: SiteURL.outboxDiscard($0.id).path) }
        hasHeld = !held.isEmpty
        self.layout = layout
        self.statusOptions = statusOptions
        self.typeOptions = typeOptions
        self.rows = rows
        self.isEmpty = isEmpty
        self.counts = counts
        self.transport = transport
        self.deliveryOff = deliveryOff
        self.watchURL = watchURL
        hasWatchURL = !watchURL.isEmpty
        self.policy = policy
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "statusOptions": statusOptions
        case "typeOptions": typeOptions
        case "rows": rows
        case "isEmpty": isEmpty
        case "counts": counts
        case "transport": transport
        case "deliveryOff": deliveryOff
        case "watchURL": watchURL
        case "hasWatchURL": hasWatchURL
        case "policy": policy
        case "filterURL": filterURL
        case "held": held
        case "hasHeld": hasHeld
        default: nil
        }
    }
}
