import Foundation

/// How the team reads the clock, as staff chose it on the on-call page: 24-hour unless they
/// choose 12-hour, and a zone of their own until a rotation (which has one) is set up.
public struct TeamClockSetting: Sendable, Equatable {
    /// The zone chosen before any rotation existed; the rotation's zone wins once there is one.
    public var chosenZone: TimeZone?
    /// "6:51 PM" instead of "18:51".
    public var twelveHour: Bool

    /// Before staff choose: the server's zone, 24-hour.
    public static let standard = TeamClockSetting(chosenZone: nil, twelveHour: false)

    public init(chosenZone: TimeZone?, twelveHour: Bool) {
        self.chosenZone = chosenZone
        self.twelveHour = twelveHour
    }

    /// "24-hour", "12-hour".
    public var hoursText: String { twelveHour ? "12-hour" : "24-hour" }
}

/// The team's clock as every page uses it: the zone in force and the hours.
public struct TeamClockChoice: Sendable, Equatable {
    public var zone: TimeZone
    public var twelveHour: Bool
    /// Whether the zone is the rotation's (then it changes with the rotation, not on its own).
    public var zoneIsRotations: Bool

    public init(zone: TimeZone, twelveHour: Bool, zoneIsRotations: Bool) {
        self.zone = zone
        self.twelveHour = twelveHour
        self.zoneIsRotations = zoneIsRotations
    }
}
