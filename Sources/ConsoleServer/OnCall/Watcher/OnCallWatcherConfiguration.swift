import Foundation

/// How the queue watcher looks at the queues and how its alerts repeat and escalate.
public struct OnCallWatcherConfiguration: Sendable, Equatable {
    /// Seconds between looks at the queues.
    public var interval: TimeInterval
    /// The share of the backend's reads per endpoint and window the watcher may spend on its
    /// own reads (0.2: 12 of 60); the mirror has its own share, and the rest is other clients' margin.
    public var readShare: Double
    /// An episode not acknowledged is told again this long after its last message.
    public var repeatInterval: TimeInterval
    /// Not acknowledged this long after the holder was told: the next person in the rotation is.
    public var ackTimeout: TimeInterval
    /// The backend's rate-limit window in seconds (300) and reads per endpoint in it (60).
    public var windowSeconds: Int
    public var backendLimit: Int
    /// The mirror answers for a queue when its last complete pass over that queue ended
    /// within this many seconds and the backend is answering; otherwise the watcher reads.
    public var mirrorFreshness: TimeInterval

    public init(
        interval: TimeInterval = 30, readShare: Double = 0.2, repeatInterval: TimeInterval = 60 * 60, ackTimeout: TimeInterval = 30 * 60,
        windowSeconds: Int = 300, backendLimit: Int = 60, mirrorFreshness: TimeInterval = 10 * 60
    ) {
        self.interval = interval
        self.readShare = readShare
        self.repeatInterval = repeatInterval
        self.ackTimeout = ackTimeout
        self.windowSeconds = windowSeconds
        self.backendLimit = backendLimit
        self.mirrorFreshness = mirrorFreshness
    }

    /// Reads per endpoint and window the watcher may make.
    public var budget: Int { max(0, Int((Double(backendLimit) * readShare).rounded(.down))) }
}
