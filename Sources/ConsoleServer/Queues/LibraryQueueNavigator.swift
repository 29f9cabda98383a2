import Foundation
import ModerationStore

/// Finds the libraries before and after one in the list a moderator works through: what
/// "previous" and "next" open, and where a decision on a library's page leads.
struct LibraryQueueNavigator {
    let store: ModerationStore

    /// How many neighbours are looked at to skip those a colleague is reviewing.
    private static let lookahead = 10

    /// The pages of the libraries just before and after `library` in `queue`. "Next" skips
    /// libraries someone else holds a claim on (they are being reviewed); "previous" does not,
    /// since going back is for looking again.
    func neighbours(of library: MirrorLibrary, in queue: LibraryQueueContext, viewer: Int?, now: Date) async throws -> (previous: String?, next: String?) {
        let around = try await store.mirroredLibraries(around: library, matching: queue.mirrorQuery, order: queue.order, limit: Self.lookahead)
        let claims = try await store.activeClaims(kind: .library, keys: around.after.map(\.slug), now: now)
        let next = around.after.first { claims[$0.slug].map { $0.holderId == viewer } ?? true }
        return (around.before.first.map { queue.detailPath(slug: $0.slug) }, next.map { queue.detailPath(slug: $0.slug) })
    }

    /// Where to go after deciding on the library `slug`: the next one in `queue`, or the list
    /// itself when none is left.
    func afterDecision(on slug: String, in queue: LibraryQueueContext, viewer: Int?, now: Date) async throws -> String {
        guard let library = try await store.mirroredLibrary(slug: slug) else { return queue.listPath }
        return try await neighbours(of: library, in: queue, viewer: viewer, now: now).next ?? queue.listPath
    }
}
