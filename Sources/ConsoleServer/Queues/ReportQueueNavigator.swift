import Foundation
import ModerationStore

/// Finds the reports before and after one in the list a moderator works through, as
/// `LibraryQueueNavigator` does for libraries: what previous and next open, and where a
/// decision on a report's page leads.
struct ReportQueueNavigator {
    let store: ModerationStore

    /// How many neighbours are looked at to skip those a colleague is reviewing.
    private static let lookahead = 10

    /// The pages of the reports just before and after `report` in `queue`; "next" skips reports
    /// someone else holds a claim on, "previous" does not.
    func neighbours(of report: MirrorReport, in queue: ReportQueueContext, viewer: Int?, now: Date) async throws -> (previous: String?, next: String?) {
        let around = try await store.mirroredReports(
            around: report, status: queue.mirrorStatus, reason: queue.reason, order: queue.order, limit: Self.lookahead)
        let claims = try await store.activeClaims(kind: .report, keys: around.after.map { String($0.id) }, now: now)
        let next = around.after.first { claims[String($0.id)].map { $0.holderId == viewer } ?? true }
        return (around.before.first.map { queue.detailPath(id: $0.id) }, next.map { queue.detailPath(id: $0.id) })
    }

    /// Where to go after deciding on report `id`: the next one in `queue`, or the list itself when none is left.
    func afterDecision(on id: Int, in queue: ReportQueueContext, viewer: Int?, now: Date) async throws -> String {
        guard let report = try await store.mirroredReport(id: id) else { return queue.listPath }
        return try await neighbours(of: report, in: queue, viewer: viewer, now: now).next ?? queue.listPath
    }
}
