import BookCornersAPI
import Foundation
import ModerationStore
import Synchronization

/// What every signed-in page's header shows from the database (the viewer's pending actions
/// and their items' names, the navigation counts), as last read per session, for `lifetime`
/// and only while the database stands exactly where it stood when they were read: any commit,
/// by any process, reads them anew. Without it each page view paid three reads before its own.
final class RecentHeaders: Sendable {
    struct Header: Sendable {
        let pendingActions: [ModerationAction]
        let pendingActionTargets: [String: DecisionTargetName]
        let navigationCounts: ModerationSummary?
        /// The change record's newest id when the header was read: a page's stream starts after it,
        /// so nothing that happens between the page and its stream is missed.
        let liveAfter: Int64
    }

    private struct Copy {
        let header: Header
        let stamp: ChangeStamp
        let readAt: ContinuousClock.Instant
    }

    let lifetime: Duration
    private let maximumCount: Int
    private let copies = Mutex<[String: Copy]>([:])

    init(lifetime: Duration = .seconds(2), maximumCount: Int = 512) {
        self.lifetime = lifetime
        self.maximumCount = maximumCount
    }

    /// The header of session `id` from its copy, or read with `read` (and kept when nothing
    /// was committed while it was read).
    func header(session id: String, store: ModerationStore, read: () async throws -> Header) async rethrows -> Header {
        let now = ContinuousClock.now
        guard let stamp = store.changeStamp() else { return try await read() }
        let kept = copies.withLock { copies -> Header? in
            guard let copy = copies[id], copy.stamp == stamp, now - copy.readAt < lifetime else { return nil }
            return copy.header
        }
        if let kept { return kept }
        let header = try await read()
        guard store.changeStamp() == stamp else { return header }
        copies.withLock { copies in
            if copies.count >= maximumCount { copies = copies.filter { $0.value.stamp == stamp && now - $0.value.readAt < lifetime } }
            if copies.count >= maximumCount { copies.removeAll() }
            copies[id] = Copy(header: header, stamp: stamp, readAt: now)
        }
        return header
    }
}
