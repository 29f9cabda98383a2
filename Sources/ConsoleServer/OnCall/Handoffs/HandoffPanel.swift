import Foundation
import ModerationStore
import Mustache

/// The dashboard's hand-off corner: "Hand-off from alice" for the person who took over, until
/// they dismiss it; and, for the person on call, a link to their note for the next person.
struct HandoffPanel: MustacheParent {
    /// A hand-off not yet dismissed by its incoming person.
    struct Received: MustacheParent {
        let from: String
        let period: String
        let digestSummary: String
        let noteText: String
        let hasNote: Bool
        let followUpCount: Int
        let hasFollowUps: Bool
        let href: String
        let dismissURL: String
        /// No decision, no note, nothing since: one quiet line, not a card to read through.
        var isQuiet = false

        func child(named key: String) -> Any? {
            switch key {
            case "isQuiet": isQuiet
            case "from": from
            case "period": period
            case "digestSummary": digestSummary
            case "noteText": noteText
            case "hasNote": hasNote
            case "followUpCount": followUpCount
            case "hasFollowUps": hasFollowUps
            case "href": href
            case "dismissURL": dismissURL
            default: nil
            }
        }
    }

    /// The viewer is on call: their note for the coming hand-off.
    struct NoteLink: MustacheParent {
        /// Who takes over and when ("Sat 28 Nov 10:00"), from the schedule every page asks.
        let incoming: String
        let handoffAt: String
        let hasNext: Bool
        let hasNote: Bool
        let href: String

        func child(named key: String) -> Any? {
            switch key {
            case "incoming": incoming
            case "handoffAt": handoffAt
            case "hasNext": hasNext
            case "hasNote": hasNote
            case "href": href
            default: nil
            }
        }
    }

    let received: Received?
    let noteLink: NoteLink?

    /// Nothing to show (nobody signed in, nothing handed over, not on call).
    static let empty = HandoffPanel(received: nil, noteLink: nil)

    /// What `staffID` sees at `now`.
    static func load(from store: ModerationStore, staffID: Int, now: Date) async throws -> HandoffPanel {
        var received: Received?
        if let handoff = try await store.shownHandoff(incomingID: staffID) {
            let followUps = try await store.handoffFollowUps(handoffID: handoff.id).count
            received = Received(
                from: handoff.outgoing.username,
                period: TeamClock.current.span(from: handoff.startsAt, to: handoff.endsAt),
                digestSummary: HandoffDigestView.summary(handoff.digest), noteText: handoff.digest.note?.text ?? "",
                hasNote: handoff.digest.note != nil, followUpCount: followUps, hasFollowUps: followUps > 0,
                href: SiteURL.onCallHandoff(handoff.id).path, dismissURL: SiteURL.onCallHandoffDismiss(handoff.id).path,
                isQuiet: handoff.digest.decisionCount == 0 && handoff.digest.note == nil && followUps == 0)
        }
        var noteLink: NoteLink?
        if let schedule = try await store.onCallSchedule(since: now), schedule.member(at: now)?.id == staffID {
            let clock = TeamClock.current.on(schedule.rotation.timeZone)
            let next = schedule.nextHandoff(after: now)
            noteLink = NoteLink(
                incoming: next?.incoming.member.username ?? "", handoffAt: next.map { "at " + clock.dayAndTime($0.at, now: now) } ?? "", hasNext: next != nil,
                hasNote: try await store.pendingHandoffNote(authorID: staffID) != nil, href: SiteURL.onCallHandoffs.path)
        }
        return HandoffPanel(received: received, noteLink: noteLink)
    }

    func child(named key: String) -> Any? {
        switch key {
        case "received": received
        case "noteLink": noteLink
        default: nil
        }
    }
}
