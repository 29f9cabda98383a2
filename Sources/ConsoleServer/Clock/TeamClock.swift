import Foundation

/// The team's one clock. Every absolute time a page shows is on it, written one way with the
/// zone named: "2026-11-27 06:51 Rome time" (or "2026-11-27 6:51 AM Rome time" when staff chose 12-hour).
/// The zone is the on-call rotation's, else the one staff chose, else the server's.
/// `TeamClockMiddleware` sets it for each request; a page puts the exact UTC instant in the
/// element's title.
enum TeamClock {
    @TaskLocal static var current = OnCallTimeText(zone: .current)

    /// "2026-11-27 06:51 Rome time".
    static func stamp(_ date: Date) -> String {
        current.stamp(date)
    }

    /// "06:51 Rome time" on the same day as `now` on the team's clock, the whole stamp otherwise.
    static func shortStamp(_ date: Date, now: Date) -> String {
        let full = current.stamp(date)
        return full.prefix(10) == current.stamp(now).prefix(10) ? String(full.dropFirst(11)) : full
    }
}
