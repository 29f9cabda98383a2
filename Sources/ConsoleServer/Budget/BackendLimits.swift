import Foundation

/// What the backend allows the console per rate-limit scope and window (backend-api.md): the
/// limits `BackendBudget` keeps every console process on one database within, together.
public struct BackendLimits: Sendable, Equatable {
    /// The backend's window in seconds; windows start at multiples of it since the epoch.
    public var windowSeconds: Int
    /// Reads per scope and window.
    public var reads: Int
    /// Writes (decisions) per scope and window.
    public var writes: Int
    public var signIns: Int
    public var refreshes: Int
    /// The share of `reads` spent on reads no other share covers (`auth/me`): the rest is other clients' margin.
    public var readShare: Double

    public init(windowSeconds: Int = 300, reads: Int = 60, writes: Int = 10, signIns: Int = 10, refreshes: Int = 15, readShare: Double = 0.5) {
        self.windowSeconds = windowSeconds
        self.reads = reads
        self.writes = writes
        self.signIns = signIns
        self.refreshes = refreshes
        self.readShare = readShare
    }

    /// Reads per scope and window for calls no other share covers.
    var otherReads: Int { max(0, Int((Double(reads) * readShare).rounded(.down))) }
}
