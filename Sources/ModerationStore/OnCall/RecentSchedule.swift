import Foundation
import Synchronization

/// The rotation and its overrides as last read, for `recentLifetime`: every signed-in page's
/// header asks who is on call, and the answer changes only when someone edits the rotation.
/// The store's own rotation and override writes drop it first, so this process never shows
/// an edit late; another console process on the same file sees it within `recentLifetime`.
final class RecentSchedule: Sendable {
    static let recentLifetime: TimeInterval = 2

    private struct Copy {
        let rotation: Rotation?
        /// Overrides ending after `coversFrom`: any later `since` is answered by filtering these.
        let overrides: [RotationOverride]
        let coversFrom: Date
        let readAt: Date
    }

    private let copy = Mutex<Copy?>(nil)
    /// Bumped by every `forget`: a read begun before a write must not be kept after it.
    private let writes = Mutex(0)

    /// The count of writes so far, taken before a read; `keep` it only if none landed since.
    func generation() -> Int {
        writes.withLock { $0 }
    }

    /// The schedule from the copy when it is recent and covers `since`; `nil` when it must be read.
    func schedule(since: Date, now: Date) -> OnCallSchedule?? {
        copy.withLock { copy -> OnCallSchedule?? in
            guard let copy, now >= copy.readAt, now.timeIntervalSince(copy.readAt) < Self.recentLifetime,
                since >= copy.coversFrom
            else {
                return .none
            }
            return .some(copy.rotation.map { OnCallSchedule(rotation: $0, overrides: copy.overrides.filter { $0.endsAt > since }) })
        }
    }

    func keep(rotation: Rotation?, overrides: [RotationOverride], coversFrom: Date, readAt: Date, readSinceGeneration generation: Int) {
        writes.withLock { writes in
            guard writes == generation else { return }
            copy.withLock { $0 = Copy(rotation: rotation, overrides: overrides, coversFrom: coversFrom, readAt: readAt) }
        }
    }

    func forget() {
        writes.withLock { writes in
            writes += 1
            copy.withLock { $0 = nil }
        }
    }
}
