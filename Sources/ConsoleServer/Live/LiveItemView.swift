import Foundation
import ModerationStore
import ModerationVocabulary

/// What an open page shows of one item after a change, for one viewer: the same words its
/// row would have on a reload ("Approved by maria 12 s ago", "Approval queued by you, sending
/// now", "maria is reviewing · 14 min left"), and whether its one-click buttons still apply.
struct LiveItemView: Encodable, Equatable {
    let kind: String
    let key: String
    /// Waiting, with no decision on its way: its decision buttons apply.
    let waiting: Bool
    /// What became of it, or what is on its way; empty while it simply waits.
    let note: String
    /// Someone else's claim, in words; empty when there is none (or it is the viewer's).
    let claim: String
    let claimedByOther: Bool
    /// Who holds that claim and when it runs out (ISO 8601): the page counts down and clears it; "" without one.
    let claimHolder: String
    let claimEndsAt: String
    /// Its status as the mirror has it ("pending" until Book Corners confirmed a decision); "" when not mirrored.
    let status: String

    /// `decision` is the item's latest decision as pages show it (with its expected send time); nil for the item's own.
    init(_ item: LiveItem, decision: ModerationAction? = nil, viewerId: Int, now: Date) {
        let latestDecision = decision ?? item.latestDecision
        kind = item.target.kind.rawValue
        key = item.target.key
        status = item.status?.rawValue ?? ""
        if let decision = latestDecision, !decision.state.isFinal {
            let queued = QueuedDecisionNote(decision, viewerId: viewerId, now: now)
            waiting = false
            note = "\(queued.text), \(queued.when)\(queued.hasTime ? " \(queued.timeText)" : "")"
        } else if item.isGone {
            waiting = false
            note = "Deleted at Book Corners"
        } else if let status = item.status, status != .pending, status != .open {
            waiting = false
            note = Self.decided(status, by: latestDecision, viewerId: viewerId, now: now)
        } else {
            waiting = item.status != nil
            note = ""
        }
        if let held = item.claim, held.holderId != viewerId, waiting {
            claim = "\(held.holderUsername) is reviewing · \(held.minutesLeft(at: now)) min left"
            claimedByOther = true
            claimHolder = held.holderUsername
            claimEndsAt = TimeText.iso(held.expiresAt)
        } else {
            claim = ""
            claimedByOther = false
            claimHolder = ""
            claimEndsAt = ""
        }
    }

    /// "Approved by maria 12 s ago" when a decision through the console made it so; otherwise
    /// the change was made at Book Corners itself.
    private static func decided(_ status: ItemStatus, by decision: ModerationAction?, viewerId: Int, now: Date) -> String {
        guard let decision, decision.state == .applied, decision.statusWanted == status else {
            return "\(status.pastTense) at Book Corners"
        }
        let who = decision.actorId == viewerId ? "you" : decision.actorUsername
        let age = now.timeIntervalSince(decision.updatedAt) < 10 ? "just now" : TimeText.age(of: decision.updatedAt, now: now)
        return "\(status.pastTense) by \(who) \(age)"
    }
}
