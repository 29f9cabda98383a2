import Foundation
import ModerationStore
import Mustache

/// What saving a rotation change does to who is on call right now, said before it is saved: a
/// change of start date, order or shift length can hand over at once, and the person next, who
/// the outgoing person's note was written for, may be passed over.
struct RotationMove: MustacheParent, Sendable {
    /// Who is on call now under the rotation as it stands, since their turn began.
    let outgoing: OnCallSchedule.Turn
    /// Who is on call now once the change is saved; `nil`: nobody (the changed rotation starts later).
    let incoming: OnCallSchedule.Turn?
    /// "Saving this makes maria on call now (until tomorrow 09:00 Rome time) instead of you."
    let sentence: String
    let handover: String
    let confirmLabel: String
    let cancelURL = SiteURL.onCall.path

    /// `nil` when saving `rotation` leaves the person on call at `now` where they are (or nobody
    /// is on call under the rotation as it stands).
    static func saving(_ rotation: Rotation, over schedule: OnCallSchedule?, at now: Date) -> (outgoing: OnCallSchedule.Turn, incoming: OnCallSchedule.Turn?)? {
        guard let schedule, let outgoing = schedule.turn(at: now) else { return nil }
        let incoming = OnCallSchedule(rotation: rotation, overrides: schedule.overrides).turn(at: now)
        guard incoming?.member != outgoing.member else { return nil }
        return (outgoing, incoming)
    }

    init(outgoing: OnCallSchedule.Turn, incoming: OnCallSchedule.Turn?, viewerID: Int, outgoingHasNote: Bool, clock: OnCallTimeText, now: Date) {
        self.outgoing = outgoing
        self.incoming = incoming
        func name(_ member: StaffMember) -> String { member.id == viewerID ? "you" : member.username }
        let out = name(outgoing.member)
        guard let incoming else {
            sentence = "Saving this leaves nobody on call now, instead of \(out): the changed rotation has not started yet."
            handover = "No hand-off is made, since nobody takes over."
            confirmLabel = "Save: nobody on call now"
            return
        }
        let into = name(incoming.member)
        sentence = "Saving this makes \(into) on call now (until \(clock.dayAndTime(incoming.endsAt, now: now))) instead of \(out)."
        let note = outgoingHasNote ? " and the note \(out) wrote for the next person" : ""
        handover =
            "Saving hands over at once, as a scheduled hand-off does: \(into == "you" ? "you get" : "\(into) gets") the hand-off from \(out), "
            + "with the digest of the shift so far\(note)."
        confirmLabel = into == "you" ? "Save and take over now" : "Save and hand over to \(into) now"
    }

    var outgoingID: String { String(outgoing.member.id) }
    var incomingID: String { incoming.map { String($0.member.id) } ?? "" }

    func child(named key: String) -> Any? {
        switch key {
        case "sentence": sentence
        case "handover": handover
        case "confirmLabel": confirmLabel
        case "outgoingID": outgoingID
        case "incomingID": incomingID
        case "cancelURL": cancelURL
        default: nil
        }
    }
}

/// The date and time fields' patterns and hints, on the team's clock.
struct TimeInputs: MustacheParent, Sendable {
    let twelveHour: Bool

    func child(named key: String) -> Any? {
        switch key {
        case "timePattern": TeamTimeInput.timePattern
        case "datePattern": TeamTimeInput.datePattern
        case "dateAndTimePattern": TeamTimeInput.dateAndTimePattern
        case "timePlaceholder": TeamTimeInput.timePlaceholder(twelveHour: twelveHour)
        case "timeFormat": twelveHour ? "h:mm AM or PM" : "HH:MM, 24-hour"
        // A phone's number pad has no letters for AM and PM.
        case "timeInputMode": twelveHour ? "text" : "numeric"
        default: nil
        }
    }
}
