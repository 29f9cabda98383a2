import Foundation
import ModerationStore
import Mustache

/// The Hand-offs page: the shift under way (and its note for the next person) and past hand-offs.
struct HandoffsPage: MustacheParent {
    /// The rotation shift under way.
    struct Current: MustacheParent {
        let shift: Int
        let onCall: String
        let handoffAt: String
        let incoming: String
        /// The viewer is on call now: the note form is theirs.
        let canWriteNote: Bool
        let noteText: String
        let noteAuthor: String
        let noteWritten: String
        let hasNote: Bool
        let noteURL: String

        func child(named key: String) -> Any? {
            switch key {
            case "shift": shift
            case "onCall": onCall
            case "handoffAt": handoffAt
            case "incoming": incoming
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
        let shift: Int
        let href: String
        let period: String
        let outgoing: String
        let incoming: String
        let decisions: Int
        let dismissed: Bool

        func child(named key: String) -> Any? {
            switch key {
            case "shift": shift
            case "href": href
            case "period": period
            case "outgoing": outgoing
            case "incoming": incoming
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
    let rows: [Row]
    let isEmpty: Bool
    let problem: String
    let hasProblem: Bool

    init(layout: LayoutModel, current: Current?, timeZone: String, rows: [Row], problem: String?) {
        self.layout = layout
        subnav = OnCallSubnav.links(current: .handoffs)
        self.current = current
        hasCurrent = current != nil
        self.timeZone = timeZone
        self.rows = rows
        isEmpty = rows.isEmpty
        self.problem = problem ?? ""
        hasProblem = problem != nil
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "subnav": subnav
        case "current": current
        case "hasCurrent": hasCurrent
        case "timeZone": timeZone
        case "rows": rows
        case "isEmpty": isEmpty
        case "problem": problem
        case "hasProblem": hasProblem
        default: nil
        }
    }
}

extension HandoffsPage.Row {
    init(_ handoff: ShiftHandoff) {
        let zone = TimeZone(identifier: handoff.digest.timeZone) ?? .gmt
        shift = handoff.shiftIndex
        href = SiteURL.onCallHandoff(handoff.shiftIndex).path
        period = "\(ZonedTimeText.text(handoff.startsAt, in: zone)) – \(ZonedTimeText.text(handoff.endsAt, in: zone))"
        outgoing = handoff.outgoing.username
        incoming = handoff.incoming.username
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
    let shift: Int
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

    init(
        layout: LayoutModel, handoff: ShiftHandoff, followUps: [HandoffNote], viewerID: Int, followUpText: String = "", problem: String? = nil
    ) {
        let zone = TimeZone(identifier: handoff.digest.timeZone) ?? .gmt
        func time(_ date: Date) -> String { ZonedTimeText.text(date, in: zone) }
        self.layout = layout
        subnav = OnCallSubnav.links(current: .handoffs)
        shift = handoff.shiftIndex
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
        followUpURL = SiteURL.onCallHandoffFollowUp(handoff.shiftIndex).path
        self.followUpText = followUpText
        canDismiss = viewerID == handoff.incoming.id && handoff.state.allowedNext.contains(.dismissed)
        dismissURL = SiteURL.onCallHandoffDismiss(handoff.shiftIndex).path
        listURL = SiteURL.onCallHandoffs.path
        self.problem = problem ?? ""
        hasProblem = problem != nil
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "subnav": subnav
        case "shift": shift
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
        default: nil
        }
    }
}
