import Foundation
import ModerationStore
import Mustache

/// What became of the decision the viewer just made on a list row, shown in the row's place:
/// applied, waiting to be sent, or a conflict. Every row has one (`none` when undecided), so
/// the template never finds a field of the page by the same name.
struct RowOutcome: MustacheParent, Sendable, Hashable {
    /// `applied` (`applied-refusal` for a rejection or dismissal), `waiting`, `conflict`,
    /// `failed` or `cancelled`; "" when the row was not just decided.
    let state: String
    /// "Approved", "Reject waiting to be sent", "Conflict: …".
    let text: String
    let isShown: Bool

    /// A row decided this long ago or more is shown as the mirror has it (the mirror reads
    /// each queue's waiting items again within two minutes, which is when the list is
    /// "reloaded from the backend"); a decision still waiting to be sent stays in place until sent.
    static let keptFor: TimeInterval = 120

    static let none = RowOutcome(state: "", text: "", isShown: false)

    private init(state: String, text: String, isShown: Bool) {
        self.state = state
        self.text = text
        self.isShown = isShown
    }

    init(_ action: ModerationAction) {
        isShown = true
        switch action.state {
        case .applied:
            // A rejection that went through is done, not good news: it never reads in green.
            state = [.rejected, .dismissed].contains(action.statusWanted) ? "applied-refusal" : "applied"
            text = action.statusWanted.pastTense
        case .conflict:
            state = "conflict"
            text = action.outcomeMessage ?? "Not sent: someone else changed it first."
        case .failed:
            state = "failed"
            text = action.outcomeMessage ?? "Not applied: Book Corners refused it."
        case .cancelled:
            state = "cancelled"
            text = action.outcomeMessage ?? "Cancelled before it was sent."
        case .queued, .sending, .waiting, .parked:
            state = "waiting"
            text = "\(action.statusWanted.pastTense): recorded, waiting to be sent"
        }
    }

    /// Whether a decision still counts as "just made" at `now`.
    static func isRecent(_ action: ModerationAction, now: Date) -> Bool {
        // A cancelled decision leaves the row as it was: waiting, to decide again.
        action.state != .cancelled && (!action.state.isFinal || now.timeIntervalSince(action.updatedAt) < keptFor)
    }

    func child(named key: String) -> Any? {
        switch key {
        case "state": state
        case "text": text
        case "isShown": isShown
        default: nil
        }
    }
}
