import Foundation
import ModerationStore

/// Decides which of the mirror's backend reads may happen when. For each rate-limit scope
/// it keeps a budget per backend window (windows aligned to `floor(now / window)`, as the
/// backend counts them), never grants more than that budget, keeps a share of it for the
/// checks before decisions, serves queue fronts before everything else, leaves the pending
/// sweep and full passes (sharing alike) only what the queue fronts will not need before the
/// window ends, and pauses a scope
/// after a 429 until its `retry_after`. Time is passed in, so it is exact under test.
public struct ReadPlanner: Sendable {
    /// The knobs, all from configuration.
    public struct Policy: Sendable, Equatable {
        /// The backend's window, in seconds (300).
        public var windowSeconds: Int
        /// Reads the backend allows per scope and window (60).
        public var backendLimit: Int
        /// The share of `backendLimit` the mirror may spend (0.5): the rest is other clients' margin.
        public var readShare: Double
        /// The share of the budget kept for checks before decisions.
        public var decisionShare: Double
        /// A queue's first page is read this often: 25 s by default, so with the read and the
        /// check that follows it a change shows within the 30-s freshness goal.
        public var firstPageInterval: TimeInterval
        /// Every waiting item is re-read at least this often while the budget allows.
        public var pendingItemInterval: TimeInterval
        /// No read starts this close to a window's end: the backend counts a read when it
        /// arrives, and one granted in this window must not land in the next.
        public var windowEdgeMargin: TimeInterval

        public init(
            windowSeconds: Int = 300, backendLimit: Int = 60, readShare: Double = 0.5, decisionShare: Double = 0.2,
            firstPageInterval: TimeInterval = 25, pendingItemInterval: TimeInterval = 120, windowEdgeMargin: TimeInterval? = nil
        ) {
            self.windowSeconds = windowSeconds
            self.backendLimit = backendLimit
            self.readShare = readShare
            self.decisionShare = decisionShare
            self.firstPageInterval = firstPageInterval
            self.pendingItemInterval = pendingItemInterval
            // 1 s of a 300-s window; a test's 3-s window keeps 60 ms.
            self.windowEdgeMargin = windowEdgeMargin ?? min(1, Double(windowSeconds) / 50)
        }

        /// Reads per scope and window the mirror may spend.
        public var budget: Int { max(0, Int((Double(backendLimit) * readShare).rounded(.down))) }

        /// Of `budget`, the reads only decision checks may take.
        public var decisionReserve: Int { min(budget, Int((Double(budget) * decisionShare).rounded(.up))) }
    }

    /// One scope's spending in one window.
    private struct Spending: Sendable {
        var windowIndex: Int
        var spent = 0
        var decisionSpent = 0
        var pausedUntil: Date?
        /// Reads of the pending sweep and of the full pass in this window, so the two can share.
        var sweepSpent = 0
        var passSpent = 0
    }

    public let policy: Policy
    private var spending: [MirrorScope: Spending] = [:]
    private var lastQueueFront: [MirrorScope: Date] = [:]

    public init(policy: Policy) {
        self.policy = policy
    }

    // MARK: Windows

    /// The backend window `now` falls in.
    public func windowIndex(at now: Date) -> Int {
        Int((now.timeIntervalSince1970 / Double(policy.windowSeconds)).rounded(.down))
    }

    /// When the window `now` falls in ends.
    public func windowEnd(at now: Date) -> Date {
        Date(timeIntervalSince1970: Double((windowIndex(at: now) + 1) * policy.windowSeconds))
    }

    // MARK: Asking

    /// The most urgent of `wanted` that is due and fits the budget now; nothing is counted.
    /// Queue fronts are due `firstPageInterval` after the last one; for the other purposes
    /// the caller knows whether there is work.
    /// A pending sweep and a full pass that both have work share what the fronts leave, read
    /// for read: a pending queue longer than the spare reads would otherwise starve every pass
    /// (at 50 000 libraries the sweep always has work, and nothing but pending libraries would
    /// ever be mirrored).
    public func next(_ scope: MirrorScope, wanted: Set<ReadPurpose>, at now: Date) -> ReadPurpose? {
        var order = wanted.sorted()
        let current = self.current(scope, at: now)
        if wanted.contains(.pendingItems), wanted.contains(.fullPass), current.sweepSpent > current.passSpent {
            order.removeAll { $0 == .fullPass }
            order.insert(.fullPass, at: order.firstIndex(of: .pendingItems) ?? order.endIndex)
        }
        return order.first { purpose in
            (purpose != .queueFront || isQueueFrontDue(scope, at: now)) && fits(scope, purpose, at: now)
        }
    }

    /// Asks for one read for `purpose`; when granted it is counted at once.
    public mutating func request(_ scope: MirrorScope, for purpose: ReadPurpose, at now: Date) -> ReadGrant {
        let current = self.current(scope, at: now)
        if let paused = current.pausedUntil, paused > now { return .wait(until: paused, paused: true) }
        guard fits(scope, purpose, at: now) else { return .wait(until: windowEnd(at: now), paused: false) }
        var updated = current
        updated.spent += 1
        switch purpose {
        case .decisionCheck: updated.decisionSpent += 1
        case .pendingItems: updated.sweepSpent += 1
        case .fullPass: updated.passSpent += 1
        case .queueFront: break
        }
        spending[scope] = updated
        if purpose == .queueFront { lastQueueFront[scope] = now }
        return .granted
    }

    /// One read from the share kept for the check before a decision (the action runner's call).
    public mutating func reserveDecisionCheck(_ scope: MirrorScope, at now: Date) -> ReadGrant {
        request(scope, for: .decisionCheck, at: now)
    }

    /// The backend answered 429: nothing more in this scope until `retry_after` has passed.
    public mutating func pause(_ scope: MirrorScope, until: Date, at now: Date) {
        var updated = current(scope, at: now)
        updated.pausedUntil = max(updated.pausedUntil ?? until, until)
        spending[scope] = updated
    }

    public func isQueueFrontDue(_ scope: MirrorScope, at now: Date) -> Bool {
        guard Self.queueFronts(scope) > 0 else { return false }
        guard let last = lastQueueFront[scope] else { return true }
        return now.timeIntervalSince(last) >= policy.firstPageInterval
    }

    // MARK: Spending shared with other processes

    /// Takes up what every process on the database has spent in `scope`'s current window (the
    /// count `BackendBudget` keeps), and any pause after a 429, before deciding what to read.
    public mutating func observe(_ scope: MirrorScope, spent: Int, decisionSpent: Int, pausedUntil: Date?, at now: Date) {
        var updated = current(scope, at: now)
        updated.spent = spent
        updated.decisionSpent = decisionSpent
        if let pausedUntil { updated.pausedUntil = max(updated.pausedUntil ?? pausedUntil, pausedUntil) }
        spending[scope] = updated
    }

    /// Reads a claim for `purpose` must leave free besides the decision reserve: the queue
    /// fronts still due in the window, for the sweep and the pass; none for the fronts themselves.
    public func headroom(_ scope: MirrorScope, for purpose: ReadPurpose, at now: Date) -> Int {
        switch purpose {
        case .pendingItems, .fullPass: queueFrontNeed(scope, at: now)
        case .queueFront, .decisionCheck: 0
        }
    }

    // MARK: State kept across restarts

    /// What to store for `scope`: its window, reads spent in it, and any pause.
    public func spendingState(_ scope: MirrorScope, at now: Date) -> (windowIndex: Int, spent: Int, decisionSpent: Int, pausedUntil: Date?) {
        let current = self.current(scope, at: now)
        return (current.windowIndex, current.spent, current.decisionSpent, current.pausedUntil)
    }

    /// Takes up what a previous run stored, so a restart inside a window does not spend its budget twice.
    public mutating func restore(_ state: MirrorScopeState) {
        spending[state.scope] = Spending(
            windowIndex: state.windowIndex, spent: state.readsSpent, decisionSpent: state.decisionReadsSpent,
            pausedUntil: state.pausedUntil)
    }

    // MARK: The rules

    private func fits(_ scope: MirrorScope, _ purpose: ReadPurpose, at now: Date) -> Bool {
        let current = self.current(scope, at: now)
        if let paused = current.pausedUntil, paused > now { return false }
        if windowEnd(at: now).timeIntervalSince(now) < policy.windowEdgeMargin { return false }
        let reserveLeft = max(0, policy.decisionReserve - current.decisionSpent)
        switch purpose {
        case .decisionCheck:
            return current.spent < policy.budget
        case .queueFront:
            return current.spent + reserveLeft < policy.budget
        case .pendingItems, .fullPass:
            return current.spent + reserveLeft + queueFrontNeed(scope, at: now) < policy.budget
        }
    }

    /// Queue-front reads this scope will still need before its window ends.
    private func queueFrontNeed(_ scope: MirrorScope, at now: Date) -> Int {
        let fronts = Self.queueFronts(scope)
        guard fronts > 0 else { return 0 }
        let end = windowEnd(at: now)
        let nextDue = max(now, lastQueueFront[scope].map { $0.addingTimeInterval(policy.firstPageInterval) } ?? now)
        guard nextDue < end else { return 0 }
        let interval = max(policy.firstPageInterval, 0.001)
        return fronts * (Int((end.timeIntervalSince(nextDue) / interval).rounded(.up)))
    }

    /// The spending of `scope` in the window `now` falls in (a new window starts at zero;
    /// a pause outlives windows).
    private func current(_ scope: MirrorScope, at now: Date) -> Spending {
        let window = windowIndex(at: now)
        guard let stored = spending[scope] else { return Spending(windowIndex: window) }
        guard stored.windowIndex == window else { return Spending(windowIndex: window, pausedUntil: stored.pausedUntil) }
        return stored
    }

    /// How many queue fronts a scope serves: the first page of pending libraries, open
    /// reports, pending photos, and the summary the dashboard counts with.
    static func queueFronts(_ scope: MirrorScope) -> Int {
        switch scope {
        case .libraryList, .reportList, .photoList, .summary: 1
        case .libraryDetail, .statistics: 0
        }
    }
}
