import Foundation

/// Times as pages show them: an ISO 8601 UTC stamp (turned into local time by a little
/// script) and an age such as "3 h ago".
enum TimeText {
    static func iso(_ date: Date) -> String {
        date.formatted(.iso8601)
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

    /// The same date readable without script: "2026-11-22 04:45 UTC".
    static func utc(_ date: Date) -> String {
        let text = iso(date)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)) + " UTC"
    }
}
