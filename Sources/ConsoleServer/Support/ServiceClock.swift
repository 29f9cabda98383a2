import Foundation

/// The time a background service reads (`now`) and waits on (`sleep`): the system's in
/// production; in tests one moved by hand, so a state machine's backoffs, leases and
/// deadlines are checked in milliseconds, not by waiting them out.
public struct ServiceClock: Sendable {
    private let waits: any Clock<Duration>
    private let wallTime: @Sendable () -> Date

    /// The wall clock and the continuous clock, as every service runs in production.
    public static var system: ServiceClock {
        ServiceClock(waits: ContinuousClock(), wallTime: { Date() })
    }

    /// Wall time that follows `clock`: `start` when made, then as far on as `clock` has moved.
    public init<C: Clock<Duration>>(_ clock: C, startingAt start: Date) {
        let origin = clock.now
        let elapsed: @Sendable () -> Duration = { origin.duration(to: clock.now) }
        self.init(waits: clock, wallTime: { start.addingTimeInterval(elapsed().timeInterval) })
    }

    private init(waits: any Clock<Duration>, wallTime: @escaping @Sendable () -> Date) {
        self.waits = waits
        self.wallTime = wallTime
    }

    public var now: Date { wallTime() }

    /// Sleeps for `duration` on this clock; throws when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await waits.sleep(for: duration)
    }

    /// Sleeps for `seconds` (none when not positive), ignoring cancellation's error: the caller looks at `Task.isCancelled`.
    func pause(seconds: TimeInterval) async {
        guard seconds > 0, seconds.isFinite else { return }
        try? await sleep(for: .milliseconds(Int(seconds * 1000)))
    }
}

extension Duration {
    /// The duration in seconds, as Foundation counts time.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
