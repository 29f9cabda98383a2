import Foundation
import ModerationStore
import Mustache

/// The on-call page's "Team clock" form: the zone every page's times are on (the rotation's once
/// there is one) and 24- or 12-hour, with an example of how times then read.
struct TeamClockPanel: MustacheParent {
    /// The rotation has the zone: it is changed there, and only the hours here.
    let zoneIsRotations: Bool
    /// "Europe/Rome": the zone in force, or the one just typed when the form came back.
    let zone: String
    /// "Rome time".
    let clockName: String
    /// Now on the team's clock: "2026-11-27 09:51 Rome time".
    let example: String
    let hours: [FilterOption]
    let problem: String
    let hasProblem: Bool
    let formURL = SiteURL.onCallClock.path

    init(choice: TeamClockChoice, typedZone: String?, problem: String?, now: Date) {
        let clock = OnCallTimeText(zone: choice.zone, twelveHour: choice.twelveHour)
        zoneIsRotations = choice.zoneIsRotations
        zone = typedZone ?? choice.zone.identifier
        clockName = clock.clockName
        example = clock.stamp(now)
        hours = [
            FilterOption(value: "24", label: "24-hour (18:30)", selected: !choice.twelveHour),
            FilterOption(value: "12", label: "12-hour (6:30 PM)", selected: choice.twelveHour),
        ]
        self.problem = problem ?? ""
        hasProblem = problem != nil
    }

    func child(named key: String) -> Any? {
        switch key {
        case "zoneIsRotations": zoneIsRotations
        case "zone": zone
        case "clockName": clockName
        case "example": example
        case "hours": hours
        case "problem": problem
        case "hasProblem": hasProblem
        case "formURL": formURL
        default: nil
        }
    }
}

/// The team clock form as sent: `hours` is "24" or "12"; `timeZone` only while no rotation has one.
struct TeamClockForm: Decodable, Sendable {
    var hours: String?
    var timeZone: String?
}
