import Foundation

/// How the mirror sync reads the backend: the planner's budget and rhythm, and how often it looks for work.
public struct MirrorConfiguration: Sendable, Equatable {
    public var policy: ReadPlanner.Policy
    /// Pause between looks for due reads.
    public var tickInterval: TimeInterval
    /// Items per list read (the backend allows at most 50).
    public var pageSize: Int
    /// The statistics are read this often (the backend caches them for five minutes).
    public var statisticsInterval: TimeInterval
    /// A full pass starts no sooner than this after the previous one started, so passes do
    /// not spend a window's budget in its first seconds.
    public var passInterval: TimeInterval

    public init(
        policy: ReadPlanner.Policy = ReadPlanner.Policy(), tickInterval: TimeInterval = 1, pageSize: Int = 50,
        statisticsInterval: TimeInterval = 300, passInterval: TimeInterval = 60
    ) {
        self.policy = policy
        self.tickInterval = tickInterval
        self.pageSize = pageSize
        self.statisticsInterval = statisticsInterval
        self.passInterval = passInterval
    }
}
