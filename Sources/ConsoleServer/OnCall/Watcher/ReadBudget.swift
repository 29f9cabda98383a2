import Foundation
import ModerationStore

/// The watcher's own reads per rate-limit scope, counted in windows aligned to
/// `floor(now / window)` as the backend counts them: never more than `budget` in a window,
/// none in the last moment of a window (a read counted when it arrives must not land in the
/// next one), and none in a scope paused after a 429 until its `retry_after`.
struct ReadBudget: Sendable {
    let windowSeconds: Int
    let budget: Int
    /// No read starts this close to a window's end.
    let edgeMargin: TimeInterval
    private var spent: [MirrorScope: (window: Int, count: Int)] = [:]
    private var pausedUntil: [MirrorScope: Date] = [:]

    init(windowSeconds: Int, budget: Int) {
        self.windowSeconds = windowSeconds
        self.budget = budget
        self.edgeMargin = min(1, Double(windowSeconds) / 50)
    }

    func windowIndex(at now: Date) -> Int {
        Int((now.timeIntervalSince1970 / Double(windowSeconds)).rounded(.down))
    }

    /// Reads still allowed in `scope` now.
    func available(_ scope: MirrorScope, at now: Date) -> Int {
        if let paused = pausedUntil[scope], paused > now { return 0 }
        let windowEnd = Date(timeIntervalSince1970: Double((windowIndex(at: now) + 1) * windowSeconds))
        guard windowEnd.timeIntervalSince(now) >= edgeMargin else { return 0 }
        guard let current = spent[scope], current.window == windowIndex(at: now) else { return budget }
        return max(0, budget - current.count)
    }

    /// Counts one read in `scope` if the budget allows it.
    mutating func take(_ scope: MirrorScope, at now: Date) -> Bool {
        guard available(scope, at: now) > 0 else { return false }
        let window = windowIndex(at: now)
        let count = spent[scope].map { $0.window == window ? $0.count : 0 } ?? 0
        spent[scope] = (window, count + 1)
        return true
    }

    /// The backend answered 429: nothing more in `scope` until `until`.
    mutating func pause(_ scope: MirrorScope, until: Date) {
        pausedUntil[scope] = max(pausedUntil[scope] ?? until, until)
    }
}
