import Foundation

/// Times and durations as the On call pages and the Markdown digest show them: wall-clock
/// times in the rotation's zone, durations in days, hours and minutes.
public enum ZonedTimeText {
    /// `2026-11-23 09:00` on the wall clocks of `zone`.
    public static func text(_ date: Date, in zone: TimeZone) -> String {
        let parts = Calendar.gregorian(zone).dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    /// "3 d 4 h", "5 h 10 min", "12 min": from `start` to `end`.
    public static func age(from start: Date, to end: Date) -> String {
        duration(minutes: max(0, Int(end.timeIntervalSince(start) / 60)))
    }

    public static func duration(minutes: Int) -> String {
        let days = minutes / 1_440, hours = minutes % 1_440 / 60, rest = minutes % 60
        if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
        if hours > 0 { return rest > 0 ? "\(hours) h \(rest) min" : "\(hours) h" }
        return "\(rest) min"
    }
}
