import Foundation
import ModerationStore
import Mustache

/// The header's on-call line for one viewer: who is on call now and until when, and who is next.
/// The person on call reads it as "You are on call", in a banner they cannot miss.
struct OnCallHeadline: Sendable, Equatable, MustacheParent {
    /// "On call: maria until today 21:00 Rome time · next: jonas"; for everyone but the person on call.
    let text: String
    /// The viewer is on call now.
    let isViewerOnCall: Bool
    /// No rotation is set up: the line invites one.
    let needsRotation: Bool

    /// The line for `viewerID` at `now`, from the schedule (`nil`: no rotation yet).
    init(schedule: OnCallSchedule?, viewerID: Int, now: Date) {
        guard let schedule else {
            text = "No on-call rotation yet: set one up."
            isViewerOnCall = false
            needsRotation = true
            return
        }
        needsRotation = false
        let clock = TeamClock.current.on(schedule.rotation.timeZone)
        let (current, next) = schedule.nowAndNext(at: now)
        let nextText =
            next.map { turn in
                turn.member.id == viewerID ? " · next: you, from \(clock.dayAndTime(turn.startsAt, now: now))" : " · next: \(turn.member.username)"
            } ?? ""
        guard let current else {
            isViewerOnCall = false
            text = "Nobody is on call yet\(next.map { ": the rotation starts \(clock.dayAndTime($0.startsAt, now: now))" } ?? "")."
            return
        }
        isViewerOnCall = current.member.id == viewerID
        let until = "until \(clock.dayAndTime(current.endsAt, now: now))"
        text =
            isViewerOnCall
            ? "You are on call \(until)\(nextText)."
            : "On call: \(current.member.username) \(until)\(nextText)."
    }

    func child(named key: String) -> Any? {
        switch key {
        case "text": text
        case "isViewerOnCall": isViewerOnCall
        case "needsRotation": needsRotation
        default: nil
        }
    }
}
