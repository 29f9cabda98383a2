import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import Synchronization

/// The console's one budget of backend calls, kept in the database so that every console
/// process on it spends the same counts. Every HTTP attempt (a client's retries and the re-send
/// after a token refresh included) is claimed from a share of its scope's limit at the moment it
/// is granted, by a guarded update (`ModerationStore.claimBackendBudget`):
///
/// - `mirror`: the mirror's reads (`ReadPlanner.Policy.budget`), of which the decision reserve
///   is only for the check before each decision;
/// - `watcher`: the queue watcher's own reads;
/// - `reads`: any other read (`auth/me`);
/// - `write`, `sign-in`, `refresh`: the backend's own limits for those.
///
/// A 429 pauses its scope for every process until `retry_after`. Book Corners counts a call when
/// a worker takes it, which may be up to `countSpan` after the grant (a queue in front of it, the
/// decision protocol's in-flight bound): a call is charged to every window that span touches, all
/// or none (I5), so no window at the backend ever counts more than its limit. No attempt starts
/// in the last moment of a window either: a call asked for then waits for the next window.
final class BackendBudget: BackendCallGate {
    static let mirrorPool = "mirror"
    static let watcherPool = "watcher"
    static let readPool = "reads"
    static let writePool = "write"
    static let signInPool = "sign-in"
    static let refreshPool = "refresh"

    let limits: BackendLimits
    /// The mirror's share and its decision reserve.
    let mirrorPolicy: ReadPlanner.Policy
    /// The watcher's reads per scope and window.
    let watcherBudget: Int
    private let store: ModerationStore
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (Duration) async throws -> Void
    /// How long after its grant Book Corners may still count a call: it is charged to every
    /// window from the grant's to the one this much later.
    let countSpan: TimeInterval
    /// Decision checks granted by `reserveDecisionCheck` (counted then) whose read has not gone
    /// out yet: the read's first attempt spends one instead of claiming again.
    private let decisionCredits = Mutex<[String: (window: Int, count: Int)]>([:])

    init(
        store: ModerationStore, limits: BackendLimits, mirrorPolicy: ReadPlanner.Policy, watcherBudget: Int, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        countSpan: TimeInterval = 0
    ) {
        self.countSpan = countSpan
        self.store = store
        self.limits = limits
        self.mirrorPolicy = mirrorPolicy
        self.watcherBudget = watcherBudget
        self.logger = logger
        self.now = now
        self.sleep = sleep
    }

    /// Clients that name a share: the mirror's and the watcher's reads were granted before each call.
    static let mirrorCall = CallBudget(pool: mirrorPool, prepaid: true)
    static let watcherCall = CallBudget(pool: watcherPool, prepaid: true)

    // MARK: Windows

    func windowIndex(at now: Date) -> Int {
        Int((now.timeIntervalSince1970 / Double(limits.windowSeconds)).rounded(.down))
    }

    func windowEnd(at now: Date) -> Date {
        Date(timeIntervalSince1970: Double((windowIndex(at: now) + 1) * limits.windowSeconds))
    }

    private var edgeMargin: TimeInterval { min(1, Double(limits.windowSeconds) / 50) }

    // MARK: The mirror

    /// One mirror read in `scope`, leaving the unspent decision reserve and `headroom` reads free.
    func claimMirror(_ scope: MirrorScope, headroom: Int, at now: Date) async -> ReadGrant {
        await grant(mirrorClaim(scope.rawValue, fromReserve: false, headroom: headroom, at: now), scope: scope.rawValue, at: now)
    }

    /// One read for the check before a decision, from the mirror's share (its reserve first);
    /// counted when granted, and the check's first attempt then spends it.
    func reserveDecisionCheck(_ scope: MirrorScope, at now: Date) async -> ReadGrant {
        let result = await grant(mirrorClaim(scope.rawValue, fromReserve: true, headroom: 0, at: now), scope: scope.rawValue, at: now)
        if result == .granted {
            let window = windowIndex(at: now)
            decisionCredits.withLock { credits in
                let held = credits[scope.rawValue].map { $0.window == window ? $0.count : 0 } ?? 0
                credits[scope.rawValue] = (window, held + 1)
            }
        }
        return result
    }

    /// What the mirror's share of `scope` has spent in the window `now` falls in, as every process counted it.
    func mirrorSpending(_ scope: MirrorScope, at now: Date) async -> BudgetSpending {
        do {
            return try await store.backendBudgetSpending(scope: scope.rawValue, pool: Self.mirrorPool, windowIndex: windowIndex(at: now))
        } catch is CancellationError {
            // Shutting down: nothing more is read, and nothing went wrong.
            return BudgetSpending(spent: mirrorPolicy.budget, reserveSpent: mirrorPolicy.decisionReserve)
        } catch {
            logger.error("backend budget could not be read", metadata: ["error": "\(error)"])
            // Unknown counts as spent: nothing is read on a guess.
            return BudgetSpending(spent: mirrorPolicy.budget, reserveSpent: mirrorPolicy.decisionReserve)
        }
    }

    /// Until when `scope` is paused after a 429, `nil` when it is not.
    func pausedUntil(_ scope: String, at now: Date) async -> Date? {
        await (try? store.backendScopePausedUntil(scope, now: now)) ?? nil
    }

    private func mirrorClaim(_ scope: String, fromReserve: Bool, headroom: Int, at now: Date) -> BudgetClaim {
        BudgetClaim(
            scope: scope, pool: Self.mirrorPool, windowIndex: windowIndex(at: now), limit: mirrorPolicy.budget,
            reserve: mirrorPolicy.decisionReserve, fromReserve: fromReserve, headroom: headroom)
    }

    // MARK: The watcher

    /// Watcher reads still allowed in `scope` now.
    func watcherAvailable(_ scope: MirrorScope, at now: Date) async -> Int {
        guard await pausedUntil(scope.rawValue, at: now) == nil, windowEnd(at: now).timeIntervalSince(now) >= edgeMargin else { return 0 }
        let spent = await (try? store.backendBudgetSpending(scope: scope.rawValue, pool: Self.watcherPool, windowIndex: windowIndex(at: now)))?.spent
        return max(0, watcherBudget - (spent ?? watcherBudget))
    }

    /// One watcher read in `scope`; counted when granted.
    func claimWatcher(_ scope: MirrorScope, at now: Date) async -> Bool {
        await take(BudgetClaim(scope: scope.rawValue, pool: Self.watcherPool, windowIndex: windowIndex(at: now), limit: watcherBudget), at: now) == nil
    }

    // MARK: The client's gate

    func admit(_ endpoint: BackendEndpoint, budget: CallBudget, firstOfCall: Bool) async -> Date? {
        // A read granted to a share before its call (mirror, watcher) was claimed clear of the edge.
        if endpoint.kind == .read, budget.prepaid, firstOfCall { return nil }
        guard let at = await waitingOutTheEdge() else { return windowEnd(at: now()) }
        let window = windowIndex(at: at)
        switch endpoint.kind {
        case .write:
            return await take(BudgetClaim(scope: endpoint.scope, pool: Self.writePool, windowIndex: window, limit: limits.writes), at: at)
        case .signIn:
            return await take(BudgetClaim(scope: endpoint.scope, pool: Self.signInPool, windowIndex: window, limit: limits.signIns), at: at)
        case .refresh:
            return await take(BudgetClaim(scope: endpoint.scope, pool: Self.refreshPool, windowIndex: window, limit: limits.refreshes), at: at)
        case .read:
            switch budget.pool {
            case .some(Self.mirrorPool):
                return await take(mirrorClaim(endpoint.scope, fromReserve: false, headroom: 0, at: at), at: at)
            case .some(Self.watcherPool):
                return await take(BudgetClaim(scope: endpoint.scope, pool: Self.watcherPool, windowIndex: window, limit: watcherBudget), at: at)
            default:
                // A read of a scope the mirror budgets, made by anyone else, is a decision's check.
                guard MirrorScope(rawValue: endpoint.scope) != nil else {
                    return await take(BudgetClaim(scope: endpoint.scope, pool: Self.readPool, windowIndex: window, limit: limits.otherReads), at: at)
                }
                if spendDecisionCredit(endpoint.scope, window: window) { return nil }
                return await take(mirrorClaim(endpoint.scope, fromReserve: true, headroom: 0, at: at), at: at)
            }
        }
    }

    func backendLimited(_ endpoint: BackendEndpoint, until: Date) async {
        do {
            try await store.pauseBackendScope(endpoint.scope, until: until)
        } catch {
            logger.error("backend pause could not be stored", metadata: ["scope": "\(endpoint.scope)", "error": "\(error)"])
        }
    }

    // MARK: Claiming

    /// Now, or, in a window's last moment, the next window's start once it has come (at most
    /// `edgeMargin` later); `nil` when cancelled while waiting. No attempt starts in that moment,
    /// but refusing it would fail a staff member's sign-in or decision over a second's wait.
    private func waitingOutTheEdge() async -> Date? {
        let at = now()
        let left = windowEnd(at: at).timeIntervalSince(at)
        guard left < edgeMargin else { return at }
        do {
            try await sleep(.milliseconds(Int((left * 1000).rounded(.up)) + 1))
        } catch {
            return nil
        }
        return now()
    }

    private func spendDecisionCredit(_ scope: String, window: Int) -> Bool {
        decisionCredits.withLock { credits in
            guard let held = credits[scope], held.window == window, held.count > 0 else { return false }
            credits[scope] = (window, held.count - 1)
            return true
        }
    }

    /// Claims one attempt: `nil` when granted, else when to try again (the pause's end, or the window's).
    private func take(_ claim: BudgetClaim, at now: Date) async -> Date? {
        if let paused = await pausedUntil(claim.scope, at: now) { return paused }
        let end = windowEnd(at: now)
        guard end.timeIntervalSince(now) >= edgeMargin else { return end }
        let windows = claim.windowIndex...max(claim.windowIndex, windowIndex(at: now.addingTimeInterval(countSpan)))
        let claims = windows.map { window in
            var charged = claim
            charged.windowIndex = window
            return charged
        }
        do {
            return try await store.claimBackendBudget(claims, now: now) ? nil : (pausedUntil(claim.scope, at: now) ?? end)
        } catch is CancellationError {
            return end  // shutting down: nothing goes out, and nothing to log
        } catch {
            // Our own database failing: nothing goes out uncounted; tried again later.
            logger.error("backend budget could not be claimed", metadata: ["scope": "\(claim.scope)", "pool": "\(claim.pool)", "error": "\(error)"])
            return now.addingTimeInterval(1)
        }
    }

    private func grant(_ claim: BudgetClaim, scope: String, at now: Date) async -> ReadGrant {
        guard let until = await take(claim, at: now) else { return .granted }
        return await .wait(until: until, paused: pausedUntil(scope, at: now) != nil)
    }
}
