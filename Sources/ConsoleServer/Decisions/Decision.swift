import ModerationStore
import ModerationVocabulary

/// What a staff member can decide about an item, as forms name it.
enum Decision: String, Sendable, CaseIterable {
    case approve, reject, pending, resolve, dismiss, reopen

    /// The decisions each kind of item takes.
    static func allowed(for kind: ModerationAction.TargetKind) -> [Decision] {
        switch kind {
        case .library: [.approve, .reject, .pending]
        case .report: [.resolve, .dismiss, .reopen]
        case .photo: [.approve, .reject]
        }
    }

    /// The status the item has once the decision is applied.
    var statusWanted: ItemStatus {
        switch self {
        case .approve: .approved
        case .reject: .rejected
        case .pending: .pending
        case .resolve: .resolved
        case .dismiss: .dismissed
        case .reopen: .open
        }
    }

    /// The decision as its button says it: "Approve", "Return to pending".
    var verb: String {
        switch self {
        case .approve: "Approve"
        case .reject: "Reject"
        case .pending: "Return to pending"
        case .resolve: "Resolve"
        case .dismiss: "Dismiss"
        case .reopen: "Reopen"
        }
    }

}
