import Foundation
import ModerationStore
import Mustache

/// The Hand-offs page: who is on call and the hand-off to come (with the note for the next
/// person), and past hand-offs.
struct HandoffsPage: MustacheParent {
    /// The hand-off to come, from the schedule every page asks (`OnCallSchedule.nextHandoff`).
    struct Current: MustacheParent {
        let onCall: String
        let hasOnCall: Bool
        let handoffAt: String
        /// The hand-off's instant as the form sends it back (seconds since 1970), so a note sent
        /// after that hand-off is recognised as late.
        let handoffStamp: String
        let incoming: String
        let hasNext: Bool
        /// The viewer may write the note now (`HandoffNoteWriter`).
        let canWriteNote: Bool
        let noteText: String
        let noteAuthor: String
        let noteWritten: String
        let hasNote: Bool
        let noteURL: String

        func child(named key: String) -> Any? {
            switch key {
            case "onCall": onCall
            case "hasOnCall": hasOnCall
            case "handoffAt": handoffAt
            case "handoffStamp": handoffStamp
            case "incoming": incoming
            case "hasNext": hasNext
            case "canWriteNote": canWriteNote
            case "noteText": noteText
            case "noteAuthor": noteAuthor
            case "noteWritten": noteWritten
            case "hasNote": hasNote
            case "noteURL": noteURL
            default: nil
            }
        }
    }

    struct Row: MustacheParent {
        let title: String
        let href: String
        let period: String
        let decisions: Int
        let dismissed: Bool

        func child(named key: String) -> Any? {
            switch key {
            case "title": title
            case "href": href
            case "period": period
            case "decisions": decisions
            case "dismissed": dismissed
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let subnav: [OnCallSubnav]
    let current: Current?
    let hasCurrent: Bool
    let timeZone: String
    /// The viewer's own note not handed over yet, when the form is not theirs now.
    let ownNote: String
    let hasOwnNote: Bool
    let rows: [Row]
    let isEmpty: Bool
    let problem: String
    let hasProblem: Bool
    /// Typed text a refusal kept where the form is not shown (the viewer is not on call).
    let keptText: String
    let hasKeptText: Bool

    init(layout: LayoutModel, current: Current?, timeZone: String, ownNote: String?, rows: [Row], problem: String?, keptText: String = "") {
        self.layout = layout
        subnav = OnCallSubnav.links(current: .handoffs)
        self.current = current
        hasCurrent = current != nil
        self.timeZone = timeZone
        self.ownNote = ownNote ?? ""
        hasOwnNote = ownNote != nil
        self.rows = rows
        isEmpty = rows.isEmpty
        self.problem = problem ?? ""
        hasProblem = problem != nil
        // Without the form, the refusal and what was typed (if anything) are shown on their own.
        let keepsOutsideForm = current?.canWriteNote != true && problem != nil
        self.keptText = keepsOutsideForm ? keptText : ""
        hasKeptText = keepsOutsideForm
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "subnav": subnav
        case "current": current
        case "hasCurrent": hasCurrent
        case "timeZone": timeZone
        case "ownNote": ownNote
        case "hasOwnNote": hasOwnNote
        case "rows": rows
        case "isEmpty": isEmpty
        case "problem": problem
        case "hasProblem": hasProblem
        case "keptText": keptText
        case "hasKeptText": hasKeptText
        default: nil
        }
    }
}

extension HandoffsPage.Row {
    init(_ handoff: ShiftHandoff) {
        title = HandoffPage.title(of: handoff)
        href = SiteURL.onCallHandoff(handoff.id).path
        period = TeamClock.current.span(from: handoff.startsAt, to: handoff.endsAt)
        decisions = handoff.digest.decisionCount
        dismissed = handoff.state == .dismissed
    }
}

/// One hand-off: its digest in full, follow-ups, and the forms of the two people concerned.
struct HandoffPage: MustacheParent {
    struct FollowUp: MustacheParent {
        let author: String
        let written: String
        let text: String

        func child(named key: String) -> Any? {
            switch key {
            case "author": author
            case "written": written
            case "text": text
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let subnav: [OnCallSubnav]
    let title: String
    let period: String
    let timeZone: String
    let outgoing: String
    let incoming: String
    let built: String
    let dismissed: Bool
    let dismissal: String
    let digest: HandoffDigestView
    let followUps: [FollowUp]
    let hasFollowUps: Bool
    let canFollowUp: Bool
    let followUpURL: String
    let followUpText: String
    let canDismiss: Bool
    let dismissURL: String
    let listURL: String
    let problem: String
    let hasProblem: Bool
    /// Typed text a refusal kept where the follow-up form is not the viewer's.
    let keptText: String
    let hasKeptText: Bool

    init(
        layout: LayoutModel, handoff: ShiftHandoff, followUps: [HandoffNote], viewerID: Int, followUpText: String = "", problem: String? = nil
    ) {
        func time(_ date: Date) -> String { TeamClock.current.stamp(date) }
        self.layout = layout
        subnav = OnCallSubnav.links(current: .handoffs)
        title = Self.title(of: handoff)
        period = "\(time(handoff.startsAt)) – \(time(handoff.endsAt))"
        timeZone = handoff.digest.timeZone
        outgoing = handoff.outgoing.username
        incoming = handoff.incoming.username
        built = time(handoff.builtAt)
        dismissed = handoff.state == .dismissed
        dismissal = handoff.dismissedAt.map { "Dismissed by \(handoff.dismissedBy ?? "") at \(time($0))." } ?? ""
        digest = HandoffDigestView(handoff.digest)
        self.followUps = followUps.map { FollowUp(author: $0.author.username, written: time($0.writtenAt), text: $0.text) }
        hasFollowUps = !followUps.isEmpty
        canFollowUp = viewerID == handoff.outgoing.id
        followUpURL = SiteURL.onCallHandoffFollowUp(handoff.id).path
        self.followUpText = followUpText
        canDismiss = viewerID == handoff.incoming.id && handoff.state.allowedNext.contains(.dismissed)
        dismissURL = SiteURL.onCallHandoffDismiss(handoff.id).path
        listURL = SiteURL.onCallHandoffs.path
        self.problem = problem ?? ""
        hasProblem = problem != nil
        let keepsOutsideForm = !canFollowUp && problem != nil && !followUpText.isEmpty
        keptText = keepsOutsideForm ? followUpText : ""
        hasKeptText = keepsOutsideForm
    }

    /// "Hand-off from alice to maria, Sat 28 Nov 10:00": who and when, its identity.
    static func title(of handoff: ShiftHandoff) -> String {
        let clock = TeamClock.current
        return "Hand-off from \(handoff.outgoing.username) to \(handoff.incoming.username), \(clock.dayAndTime(handoff.endsAt))"
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "subnav": subnav
        case "title": title
        case "period": period
        case "timeZone": timeZone
        case "outgoing": outgoing
        case "incoming": incoming
        case "built": built
        case "dismissed": dismissed
        case "dismissal": dismissal
        case "digest": digest
        case "followUps": followUps
        case "hasFollowUps": hasFollowUps
        case "canFollowUp": canFollowUp
        case "followUpURL": followUpURL
        case "followUpText": followUpText
        case "canDismiss": canDismiss
        case "dismissURL": dismissURL
        case "listURL": listURL
        case "problem": problem
        case "hasProblem": hasProblem
        case "keptText": keptText
        case "hasKeptText": hasKeptText
        default: nil
        }
    }
}
