import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Times as machines and hover titles take them: an ISO 8601 UTC stamp, the UTC instant in
/// words, and an age such as "3 h ago". What a page shows is on the team's clock (`TeamClock`).
enum TimeText {
    /// `2026-11-22T04:45:21Z`. Built by hand: Foundation's formatters cost more than the
    /// rest of a queue row together, and every row shows two times.
    static func iso(_ date: Date) -> String {
        let parts = utcParts(date)
        return "\(parts.date)T\(parts.time)Z"
    }

    private static func utcParts(_ date: Date) -> (date: String, time: String) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (
            "\(fields.tm_year + 1900)-\(two(fields.tm_mon + 1))-\(two(fields.tm_mday))",
            "\(two(fields.tm_hour)):\(two(fields.tm_min)):\(two(fields.tm_sec))"
        )
    }

    /// "12 s ago", "5 min ago", "3 h ago", "4 d ago", "7 mo ago".
    static func age(of date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "\(seconds) s ago"
        case ..<3_600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3_600) h ago"
        case ..<(86_400 * 60): return "\(seconds / 86_400) d ago"
        default: return "\(seconds / (86_400 * 30)) mo ago"
        }
    }

    /// The same instant in words, for a title or a stored message: "2026-11-22 04:45 UTC".
    static func utc(_ date: Date) -> String {
        let parts = utcParts(date)
        return "\(parts.date) \(parts.time.prefix(5)) UTC"
    }
}
