import BookCornersAPI
import Foundation
import Logging
import ModerationStore

/// The console's one budget of backend calls: every HTTP attempt, the first of a call, a
/// client's retry and the re-send after a token refresh alike, passes `admit` (the client asks
/// before each), and every rule of what is counted where is in this file. Counts live in the
/// database, so every console process on it spends the same ones, and each is taken by a
/// guarded update (`ModerationStore.claimBackendBudget`) from a share of its scope's limit:
///
/// - `mirror`: the mirror's reads (`ReadPlanner.Policy.budget`), of which the decision reserve
///   is only for the checks before decisions;
/// - `watcher`: the queue watcher's own reads;
/// - `reads`: any other read (`auth/me`);
/// - `write`, `sign-in`, `refresh`: the backend's own limits for those.
///
/// A caller that must know before it calls whether it may (the mirror, the watcher, the check
/// before a decision) claims first and gets a `BudgetTicket`, which pays for the call's first
/// attempt in that scope and nothing else; any other attempt is claimed when admitted.
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

    /// A sign-in's call: from the share kept for remembered browsers, or else from the rest,
    /// of which `addressGroup` (the address, or its /64) may spend only `signInsPerAddress`.
    static func signInCall(remembered: Bool, addressGroup: String) -> CallBudget {
        CallBudget(pool: remembered ? rememberedSignInPool : signInFromPrefix + addressGroup)
    }

    static let rememberedSignInPool = "sign-in-remembered"
    /// The background staff re-check's calls (`BackgroundStaffRecheck`).
    static let backgroundRecheckPool = "reads-background"
    /// Reads of the `reads` share per window the background re-check leaves to everyone else.
    static let readsKeptFromRechecks = 4
    private static let signInFromPrefix = "sign-in-from:"

    /// The calls of the shares that claim before they call; the ticket is the grant's.
    static func mirrorCall(_ ticket: BudgetTicket) -> CallBudget { CallBudget(pool: mirrorPool, ticket: ticket) }
    static func watcherCall(_ ticket: BudgetTicket) -> CallBudget { CallBudget(pool: watcherPool, ticket: ticket) }

    // MARK: The one rule: which count an attempt spends

    /// The counts an attempt at `scope`, of `kind`, made under a call's `pool`, is charged to:
    /// one, or for a sign-in of a browser not remembered also its address's share.
    private func claims(scope: String, kind: BackendEndpoint.Kind, pool: String?, window: Int, headroom: Int = 0) -> [BudgetClaim] {
        guard kind == .signIn else { return [claim(scope: scope, kind: kind, pool: pool, window: window, headroom: headroom)] }
        let remembered = pool == Self.rememberedSignInPool
        // The remembered share binds only the limit; anyone else leaves its unspent part free.
        let shared = BudgetClaim(
            scope: scope, pool: Self.signInPool, windowIndex: window, limit: limits.signIns, reserve: limits.rememberedSignIns, fromReserve: remembered)
        guard !remembered, let pool, pool.hasPrefix(Self.signInFromPrefix) else { return [shared] }
        return [shared, BudgetClaim(scope: scope, pool: pool, windowIndex: window, limit: limits.signInsPerAddress)]
    }

    /// The one count an attempt other than a sign-in is charged to.
    private func claim(scope: String, kind: BackendEndpoint.Kind, pool: String?, window: Int, headroom: Int = 0) -> BudgetClaim {
        switch kind {
        case .write:
            return BudgetClaim(scope: scope, pool: Self.writePool, windowIndex: window, limit: limits.writes)
        case .signIn:
            return BudgetClaim(scope: scope, pool: Self.signInPool, windowIndex: window, limit: limits.signIns)
        case .refresh:
            return BudgetClaim(scope: scope, pool: Self.refreshPool, windowIndex: window, limit: limits.refreshes)
        case .read where pool == Self.backgroundRecheckPool:
            // The background staff re-check counts in the `reads` share but leaves part of it
            // free, so that sign-ins' and page views' own `auth/me` are never crowded out.
            return BudgetClaim(
                scope: scope, pool: Self.readPool, windowIndex: window, limit: limits.otherReads, headroom: Self.readsKeptFromRechecks)
        case .read where pool == Self.watcherPool:
            return BudgetClaim(scope: scope, pool: Self.watcherPool, windowIndex: window, limit: watcherBudget)
        case .read where MirrorScope(rawValue: scope) != nil:
            // The mirror's share; any other reader of a scope the mirror keeps is a decision's
            // check, which may take the reserve.
            return BudgetClaim(
                scope: scope, pool: Self.mirrorPool, windowIndex: window, limit: mirrorPolicy.budget,
                reserve: mirrorPolicy.decisionReserve, fromReserve: pool != Self.mirrorPool, headroom: headroom)
        case .read:
            return BudgetClaim(scope: scope, pool: Self.readPool, windowIndex: window, limit: limits.otherReads)
        }
    }

    // MARK: Windows

    func windowIndex(at now: Date) -> Int {
        Int((now.timeIntervalSince1970 / Double(limits.windowSeconds)).rounded(.down))
    }

    func windowEnd(at now: Date) -> Date {
        Date(timeIntervalSince1970: Double((windowIndex(at: now) + 1) * limits.windowSeconds))
    }

    private var edgeMargin: TimeInterval { min(1, Double(limits.windowSeconds) / 50) }

    // MARK: Claims made before a call

    /// One mirror read in `scope`, leaving the unspent decision reserve and `headroom` reads free.
    func claimMirror(_ scope: MirrorScope, headroom: Int, at now: Date) async -> BudgetGrant {
        await ticket(claim(scope: scope.rawValue, kind: .read, pool: Self.mirrorPool, window: windowIndex(at: now), headroom: headroom), at: now) {
            Self.mirrorCall($0)
        }
    }

    /// One read for the check before a decision, from the mirror's share (its reserve first).
    func reserveDecisionCheck(_ scope: MirrorScope, at now: Date) async -> BudgetGrant {
        await ticket(claim(scope: scope.rawValue, kind: .read, pool: nil, window: windowIndex(at: now)), at: now) { CallBudget(ticket: $0) }
    }

    /// One watcher read in `scope`.
    func claimWatcher(_ scope: MirrorScope, at now: Date) async -> BudgetGrant {
        await ticket(claim(scope: scope.rawValue, kind: .read, pool: Self.watcherPool, window: windowIndex(at: now)), at: now) {
            Self.watcherCall($0)
        }
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

    // MARK: The watcher

    /// Watcher reads still allowed in `scope` now.
    func watcherAvailable(_ scope: MirrorScope, at now: Date) async -> Int {
        guard await pausedUntil(scope.rawValue, at: now) == nil, windowEnd(at: now).timeIntervalSince(now) >= edgeMargin else { return 0 }
        let spent = await (try? store.backendBudgetSpending(scope: scope.rawValue, pool: Self.watcherPool, windowIndex: windowIndex(at: now)))?.spent
        return max(0, watcherBudget - (spent ?? watcherBudget))
    }

    // MARK: The client's gate

    func admit(_ endpoint: BackendEndpoint, budget: CallBudget) async -> Date? {
        if let ticket = budget.ticket, ticket.spend(on: endpoint) { return nil }
        guard let at = await waitingOutTheEdge() else { return windowEnd(at: now()) }
        return await take(claims(scope: endpoint.scope, kind: endpoint.kind, pool: budget.pool, window: windowIndex(at: at)), at: at)
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

    /// Claims one attempt: `nil` when granted, else when to try again (the pause's end, or the window's).
    private func take(_ claim: BudgetClaim, at now: Date) async -> Date? {
        await take([claim], at: now)
    }

    /// Claims one attempt in every count it is charged to, all or none, each in every window
    /// from the grant to `countSpan` later (I5).
    private func take(_ counts: [BudgetClaim], at now: Date) async -> Date? {
        guard let scope = counts.first?.scope else { return nil }
        if let paused = await pausedUntil(scope, at: now) { return paused }
        let end = windowEnd(at: now)
        guard end.timeIntervalSince(now) >= edgeMargin else { return end }
        let lastWindow = windowIndex(at: now.addingTimeInterval(countSpan))
        let claims = counts.flatMap { claim in
            (claim.windowIndex...max(claim.windowIndex, lastWindow)).map { window in
                var charged = claim
                charged.windowIndex = window
                return charged
            }
        }
        do {
            return try await store.claimBackendBudget(claims, now: now) ? nil : (pausedUntil(scope, at: now) ?? end)
        } catch is CancellationError {
            return end  // shutting down: nothing goes out, and nothing to log
        } catch {
            // Our own database failing: nothing goes out uncounted; tried again later.
            logger.error("backend budget could not be claimed", metadata: ["scope": "\(scope)", "pools": "\(counts.map(\.pool))", "error": "\(error)"])
            return now.addingTimeInterval(1)
        }
    }

    /// Claims one attempt before its call: a ticket that pays for it, or when to try again.
    private func ticket(_ claim: BudgetClaim, at now: Date, budget: (BudgetTicket) -> CallBudget) async -> BudgetGrant {
        guard let until = await take(claim, at: now) else { return .granted(budget(BudgetTicket(scope: claim.scope))) }
        return await .wait(until: until, paused: pausedUntil(claim.scope, at: now) != nil)
    }
}

/// A claim made before a call: granted, with the budget the call goes out under (its first
/// attempt paid), or refused until a moment (a 429's pause, or the window's end).
enum BudgetGrant: Sendable {
    case granted(CallBudget)
    case wait(until: Date, paused: Bool)

    var isGranted: Bool {
        if case .granted = self { true } else { false }
    }
}
