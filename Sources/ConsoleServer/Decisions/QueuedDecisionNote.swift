import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// "Approval queued by you, sends at 21:30": an item with a decision recorded but not yet
/// sent. Its page and its list row show this instead of live decision buttons, so a decision
/// on its way never looks like an item nobody decided.
struct QueuedDecisionNote: Sendable, Hashable, MustacheParent {
    let isShown: Bool
    /// "Approval queued by you", "Rejection queued by maria".
    let text: String
    /// "sends at" before `time`, or the whole of when it goes without a time ("sending now").
    let when: String
    let hasTime: Bool
    /// The send time as `<time datetime>` wants it (its UTC instant, shown on hover).
    let timeISO: String
    /// The send time without script: "21:30 UTC" today, with the date otherwise.
    let timeText: String

    static let none = QueuedDecisionNote()

    private init() {
        isShown = false
        text = ""
        when = ""
        hasTime = false
        timeISO = ""
        timeText = ""
    }

    init(_ action: ModerationAction, viewerId: Int?, now: Date) {
        isShown = true
        let who = action.actorId == viewerId ? "you" : action.actorUsername
        text = "\(Self.noun(action.statusWanted)) queued by \(who)"
        switch action.state {
        case .waiting where action.nextAttemptAt > now:
            when = "sends at"
            hasTime = true
        case .parked:
            when = action.actorId == viewerId ? "sends when you are signed in" : "sends when \(action.actorUsername) signs in again"
            hasTime = false
        default:
            when = "sending now"
            hasTime = false
        }
        timeISO = hasTime ? TimeText.iso(action.nextAttemptAt) : ""
        timeText = hasTime ? TeamClock.shortStamp(action.nextAttemptAt, now: now) : ""
    }

    /// "Approval by jonas held, not sent: Book Corners says jonas is no longer staff (…)": a
    /// decision its author can no longer have sent, for colleagues to see on the item's page.
    static func heldLine(_ action: ModerationAction) -> String {
        let why = action.outcomeMessage.map { $0.hasPrefix("Held, not sent: ") ? String($0.dropFirst("Held, not sent: ".count)) : $0 } ?? ""
        return "\(noun(action.statusWanted)) by \(action.actorUsername) held, not sent: \(why)"
    }

    /// The decision as a noun: what is queued.
    static func noun(_ status: ItemStatus) -> String {
        switch status {
        case .approved: "Approval"
        case .rejected: "Rejection"
        case .pending: "Return to pending"
        case .resolved: "Resolution"
        case .dismissed: "Dismissal"
        case .open: "Reopening"
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "isShown": isShown
        case "text": text
        case "when": when
        case "hasTime": hasTime
        case "timeISO": timeISO
        case "timeText": timeText
        default: nil
        }
    }
}
