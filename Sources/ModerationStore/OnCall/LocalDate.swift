import Foundation

/// A calendar date with no time or zone attached, read in a rotation's own time zone.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// `2026-03-29`; `nil` for anything else, or a date the calendar does not have (`2026-02-30`).
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        self.init(year: year, month: month, day: day)
        guard isValid else { return nil }
    }

    /// The date `instant` falls on in `zone`.
    public init(_ instant: Date, in zone: TimeZone) {
        let parts = Calendar.gregorian(zone).dateComponents([.year, .month, .day], from: instant)
        self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
    }

    /// Whether the Gregorian calendar has this day (31 April does not).
    public var isValid: Bool {
        DateComponents(year: year, month: month, day: day).isValidDate(in: Calendar.gregorian(.gmt))
    }

    /// The date `days` days later (earlier when negative).
    public func adding(days: Int) -> LocalDate {
        let calendar = Calendar.gregorian(.gmt)
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)) ?? Date(timeIntervalSince1970: 0)
        return LocalDate(calendar.date(byAdding: .day, value: days, to: noon) ?? noon, in: .gmt)
    }

    /// Days from `self` to `other` (positive when `other` is later).
    public func days(to other: LocalDate) -> Int {
        let calendar = Calendar.gregorian(.gmt)
        let from = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12)) ?? Date(timeIntervalSince1970: 0)
        let to = calendar.date(from: DateComponents(year: other.year, month: other.month, day: other.day, hour: 12)) ?? from
        return Int((to.timeIntervalSince(from) / 86_400).rounded())
    }

    /// The instant this date shows `time` on the wall clocks of `zone`. A time the clocks skip
    /// (02:30 on the night they spring forward) is the first instant after the gap.
    public func instant(at time: LocalTime, in zone: TimeZone) -> Date {
        let calendar = Calendar.gregorian(zone)
        let parts = DateComponents(year: year, month: month, day: day, hour: time.hour, minute: time.minute)
        return calendar.date(from: parts) ?? Date(timeIntervalSince1970: 0)
    }

    public var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

extension Calendar {
    /// The Gregorian calendar in `zone`.
    static func gregorian(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
