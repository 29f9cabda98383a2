import Foundation
import ModerationStore

/// Stops the calendar feed of someone who has no session and has not signed in for `idleDays`:
/// the feed shows shifts, colleagues' names and the console's address to whoever holds its
/// link, and an owner gone that long is no longer there to notice a leak. Checked when the
/// feed is asked for and by the hourly prune; the on-call page tells colleagues.
public struct IdleCalendarFeeds: Sendable {
    /// Days without a sign-in after which a feed stops (`--calendar-feed-idle-days`).
    let idleDays: Int

    public static let defaultIdleDays = 14

    /// Stops every idle feed (or only `staffId`'s); answers those stopped.
    @discardableResult
    func stop(in store: ModerationStore, now: Date = Date(), staffId: Int? = nil) async throws -> [StoppedCalendarFeed] {
        try await store.stopIdleCalendarFeeds(idleSince: now.addingTimeInterval(-Double(idleDays) * 86_400), now: now, staffId: staffId) { feed in
            AuditEntry(
                recordedAt: now, actorId: feed.staffId, actorUsername: feed.username, action: AuditEntry.calendarFeedRevokeAction,
                targetKind: "oncall", targetId: String(feed.staffId), targetSlug: "", targetName: "calendar feed of \(feed.username)",
                statusBefore: "", statusAfter: "", reason: "", outcome: .ended, outcomeDetail: "not signed in for \(idleDays) days", backendStatus: nil,
                requestId: "calendar-feed-idle", clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil)
        }
    }

    /// "jonas's calendar feed has stopped: not signed in since Thu 12 Nov." for the on-call page.
    static func line(_ feed: StoppedCalendarFeed) -> String {
        let since = feed.lastSignedInAt.map { "not signed in since \(TeamClock.current.day($0))" } ?? "no sign-in since the feed was made"
        return "\(feed.username)'s calendar feed has stopped: \(since). It starts again when they sign in and make a new feed address."
    }
}
