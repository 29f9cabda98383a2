import BookCornersAPI
import Foundation
import ModerationStore

/// What every page reads from the mirror for its frame: the navigation counts, and how
/// fresh they are.
enum MirrorPageData {
    /// A queue page older than this says so (the freshness goal).
    static let queueFreshnessGoal: TimeInterval = 30

    /// The mirrored summary, its age and the backend's silence noted in `status`; `nil` (and "still loading") before the first read.
    /// The navigation's counts alone, for pages of the console's own records that show no freshness line.
    static func navigationCounts(_ store: ModerationStore) async throws -> ModerationSummary? {
        try await store.mirrorSummary().map(ModerationSummary.init)
    }

    static func summary(_ store: ModerationStore, status: inout PageStatus) async throws -> ModerationSummary? {
        let summary = try await store.mirrorSummary()
        status.mirrored(confirmedAt: summary?.lastConfirmedAt)
        await status.mirrorHealth(try store.mirrorHealth())
        return summary.map(ModerationSummary.init)
    }
}
