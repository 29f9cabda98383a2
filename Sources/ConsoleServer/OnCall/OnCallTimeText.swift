import Foundation
import ModerationStore

/// Times of the rotation as its people read them: on the rotation's own wall clock, since a
/// hand-off is "09:00 in Rome" whatever the viewer's browser says.
public struct OnCallTimeText: Sendable {
    public let zone: TimeZone
    /// "6:51 PM" rather than "18:51", when the team chose it.
    public let twelveHour: Bool
    private let calendar: Calendar

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public init(zone: TimeZone, twelveHour: Bool = false) {
        self.zone = zone
        self.twelveHour = twelveHour
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
    }

    /// "Tue 2026-11-24 09:00 Rome time": the one format (`stamp`) with the weekday in front, for
    /// shifts and covers, which people place by the day of the week.
    public func dayAndTime(_ date: Date) -> String {
        let weekday = calendar.component(.weekday, from: date)
        return "\(Self.weekdays[(weekday - 1 + 7) % 7]) \(stamp(date))"
    }

    /// "today 09:00 Rome time", "tomorrow 09:00 Rome time", "yesterday 21:30 Rome time" for a date
    /// on the team's clock next to `now`'s day, `dayAndTime` further off: on the day itself
    /// "Sun 2026-11-29" makes people work out that it is today.
    public func dayAndTime(_ date: Date, now: Date) -> String {
        let days = LocalDate(now, in: zone).days(to: LocalDate(date, in: zone))
        let word: String
        switch days {
        case -1: word = "yesterday"
        case 0: word = "today"
        case 1: word = "tomorrow"
        default: return dayAndTime(date)
        }
        return "\(word) \(time(date)) \(zoneLabel(date))"
    }

    /// "Tue 24 Nov".
    public func day(_ date: Date) -> String {
        let parts = calendar.dateComponents([.weekday, .day, .month], from: date)
        return "\(Self.weekdays[((parts.weekday ?? 1) - 1) % 7]) \(parts.day ?? 1) \(Self.months[((parts.month ?? 1) - 1) % 12])"
    }

    /// The same hours on another zone's clock (a hand-off's digest keeps the zone it was made in).
    public func on(_ zone: TimeZone) -> OnCallTimeText {
        OnCallTimeText(zone: zone, twelveHour: twelveHour)
    }

    /// "09:00", or "9:00 AM" on a 12-hour clock.
    public func time(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return time(LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0))
    }

    /// A wall-clock time ("09:00", "9:00 AM") as the team reads the clock.
    public func time(_ local: LocalTime) -> String {
        guard twelveHour else { return local.description }
        let minutes = local.minutesAfterMidnight
        let hour = minutes / 60
        let minute = minutes % 60
        return "\(hour % 12 == 0 ? 12 : hour % 12):\(minute < 10 ? "0" : "")\(minute) \(hour < 12 ? "AM" : "PM")"
    }

    /// "2026-11-24 21:30 Rome time": the date, the time and the zone's one name (`zoneLabel`),
    /// for pages and for logs people hand on.
    public func stamp(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
        let clock = time(LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0))
        return "\(parts.year ?? 1970)-\(two(parts.month))-\(two(parts.day)) \(clock) \(zoneLabel(date))"
    }

    /// "2026-11-26 09:00 – 2026-11-27 09:00 Rome time": the zone named once.
    public func span(from start: Date, to end: Date) -> String {
        let first = stamp(start)
        let label = zoneLabel(start)
        guard label == zoneLabel(end), first.hasSuffix(" " + label) else { return "\(first) – \(stamp(end))" }
        return "\(first.dropLast(label.count + 1)) – \(stamp(end))"
    }

    /// The zone's one name on every page: "Rome time", "UTC". Not the abbreviation in effect:
    /// Foundation on Linux has none for most zones and answers the offset, so one page listing
    /// dates across a clock change read "UTC+1" here and "UTC+2" there, which people take for two
    /// zones (and "CET"/"CEST" would be two names too). The offset right for each date stays
    /// where machines and the exact time read it (`offset`, `TeamTime.exact`).
    public func zoneLabel(_ date: Date) -> String {
        clockName
    }

    /// "UTC+1", "UTC+2", "UTC+5:30", "UTC": the zone's offset from UTC at `date`.
    public func offset(_ date: Date) -> String {
        let seconds = zone.secondsFromGMT(for: date)
        guard seconds != 0 else { return "UTC" }
        let sign = seconds < 0 ? "-" : "+"
        let hours = abs(seconds) / 3_600
        let minutes = abs(seconds) % 3_600 / 60
        return "UTC\(sign)\(hours)" + (minutes == 0 ? "" : ":" + (minutes < 10 ? "0\(minutes)" : "\(minutes)"))
    }

    /// "Rome time" for `Europe/Rome`, "UTC" for UTC: which clock the times are on.
    public var clockName: String {
        // "UTC", "Etc/UTC", "GMT", "Etc/GMT-1": a fixed offset names no place, so it is named by the offset.
        if !zone.identifier.contains("/") || zone.identifier.hasPrefix("Etc/"), zone.nextDaylightSavingTimeTransition == nil {
            return offset(Date())
        }
        let city = zone.identifier.split(separator: "/").last.map(String.init) ?? zone.identifier
        return city.replacingOccurrences(of: "_", with: " ") + " time"
    }

    /// "in 3 h", "in 2 d", "in 12 min".
    public static func from(_ now: Date, to date: Date) -> String {
        let seconds = max(0, Int(date.timeIntervalSince(now)))
        switch seconds {
        case ..<3_600: return "in \(max(1, seconds / 60)) min"
        case ..<(2 * 86_400): return "in \(seconds / 3_600) h"
        default: return "in \(seconds / 86_400) d"
        }
    }
}
