import Synchronization

/// Wakes this process's `ConcernRefresher` before its interval: staff just changed the settings
/// reasons are worked out with, and the filter by reason should follow in seconds, not a minute.
/// (Another console process on the file catches up at its own next pass.)
final class ConcernRefreshNudge: Sendable {
    /// How often a waiting refresher looks for a nudge: a flag read twice a second costs nothing,
    /// where a stream cancelled by the timer would end for good (and every wait after it at once).
    private static let look = Duration.milliseconds(500)
    private let nudged = Mutex(false)

    init() {}

    /// Asks for a pass now (or as soon as the one running ends); several asks make one pass.
    func nudge() {
        nudged.withLock { $0 = true }
    }

    /// Returns after `seconds`, sooner when nudged (within half a second), or when cancelled.
    func wait(seconds: Double) async {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !Task.isCancelled {
            if nudged.withLock({ flag in
                defer { flag = false }; return flag
            }) {
                return
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            try? await Task.sleep(for: min(Self.look, left))
        }
    }
}
