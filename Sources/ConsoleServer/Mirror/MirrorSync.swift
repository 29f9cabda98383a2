import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Fills the mirror: on every tick it asks the `ReadPlanner` which reads each scope may
/// make now and makes them with the most recently active staff member's tokens (nobody
/// signed in: it waits). Every read is claimed from the database's `BackendBudget`, which
/// every console process on the database spends together, and only the process holding the
/// mirror's lease reads at all, so two processes neither spend the budget twice nor run two
/// passes. Reads are upserted by id; a full pass's cursor is stored after every read, only
/// if it is still where this process read it from, so a restart resumes without duplicates
/// and no process rewinds another's pass. A failed read changes nothing and is tried again
/// later; an item a pass did not list is called gone only after a read that would have shown
/// it did not (a library's detail read answering 404; for reports and photos, the page of
/// their list, under every status, where it would stand).
actor MirrorSync: Service {
    let store: ModerationStore
    let client: BackendClient
    let sessions: StaffSessions
    let configuration: MirrorConfiguration
    let budget: BackendBudget
    /// Ends every access of someone whose tokens Book Corners answers "Staff access required".
    let removal: StaffRemoval?
    let now: @Sendable () -> Date
    let logger: Logger
    var planner: ReadPlanner
    /// This process's name on the mirror's lease.
    let owner = UUID().uuidString
    /// Items a complete pass did not list, by id: the page to look for each on next, once a
    /// read said it stands before or after the page read, and which of the two it said.
    var confirmationPages: [MirrorScope: [Int: (page: Int, moved: MissingItemPlace)]] = [:]
    /// Sessions whose tokens the backend refused: not asked again by this process.
    var refusedSessions: Set<String> = []
    var sweeps: [MirrorScope: PendingSweep] = [:]
    /// Slugs of libraries a read of the pending queue should have listed and did not: each
    /// is read alone to learn its new status (or that it is gone).
    var libraryChecks: [String] = []

    /// Reading a queue's pages after the first, so every waiting item is confirmed in time.
    struct PendingSweep {
        /// The next page to read; `nil` between sweeps.
        var nextPage: Int?
        var lastStartedAt: Date?
        /// Pages in the queue, as its last read said.
        var totalPages = 1
    }

    init(
        store: ModerationStore, client: BackendClient, sessions: StaffSessions, configuration: MirrorConfiguration,
        budget: BackendBudget, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger, removal: StaffRemoval? = nil
    ) {
        self.removal = removal
        self.store = store
        self.client = client
        self.sessions = sessions
        self.configuration = configuration
        self.budget = budget
        self.now = now
        self.logger = logger
        self.planner = ReadPlanner(policy: configuration.policy)
    }

    func run() async throws {
        let passes = PassMetrics(service: "mirror")
        await repeatUntilShutdown(every: .milliseconds(Int(configuration.tickInterval * 1000))) {
            _ = try? await passes.measure { await self.tick() }
        }
        // Another process need not wait for the lease to run out.
        await stepAside()
    }

    /// Gives the mirror's lease up at once, so another process (or sync) reads from now on.
    func stepAside() async {
        try? await store.releaseWorkLease(Self.leaseName, owner: owner)
    }

    /// One read from the share kept for the check before a decision; the action runner asks
    /// before it re-reads an item, and waits as for a 429 when refused. Counted in the
    /// database, whichever process asks.
    func reserveDecisionCheck(_ scope: MirrorScope) async -> BudgetGrant {
        await budget.reserveDecisionCheck(scope, at: now())
    }

    /// The lease's name: one process at a time reads for the mirror.
    static let leaseName = "mirror"

    /// How long the lease holds unrenewed: longer than one read with a token refresh, so the
    /// holder keeps it between renewals; a process that died leaves the mirror to another after it.
    var leaseSeconds: TimeInterval { max(30, 3 * configuration.tickInterval) }

    /// Takes or renews the mirror's lease; false while another process holds it.
    func holdLease() async -> Bool {
        let at = now()
        do {
            return try await store.holdWorkLease(Self.leaseName, owner: owner, until: at.addingTimeInterval(leaseSeconds), now: at)
        } catch is CancellationError {
            return false  // shutting down
        } catch {
            logger.error("mirror could not take its lease", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Brings the planner up to what every process has spent in `scope` this window.
    func observeSpending(_ scope: MirrorScope) async {
        let at = now()
        let spending = await budget.mirrorSpending(scope, at: at)
        await planner.observe(
            scope, spent: spending.spent, decisionSpent: spending.reserveSpent, pausedUntil: budget.pausedUntil(scope.rawValue, at: at), at: at)
    }

    /// Makes every read that is due and within budget now, if this process holds the lease.
    func tick() async {
        guard await holdLease() else { return }
        for scope in MirrorScope.allCases {
            while true {
                await observeSpending(scope)
                guard let purpose = await planner.next(scope, wanted: wanted(scope), at: now()) else { break }
                guard let signedIn = await currentCredentials(), await holdLease() else { return }
                let started = now()
                let headroom = planner.headroom(scope, for: purpose, at: started)
                // The read's first attempt is paid by the claim; any other (the re-send after a
                // token refresh) is claimed from the mirror's share when it goes out.
                guard planner.request(scope, for: purpose, at: started) == .granted,
                    case .granted(let callBudget) = await budget.claimMirror(scope, headroom: headroom, at: started)
                else { break }
                do {
                    let read = MirrorRead(credentials: signedIn.credentials, context: CallContext(budget: callBudget), startedAt: started)
                    try await self.read(scope, purpose, read)
                    await noteAnswer(true)
                } catch .rateLimited(let seconds) {
                    await noteAnswer(true)
                    // Another client at our address spent the budget: wait as long as the backend says
                    // (the client stored the pause for every process).
                    planner.pause(scope, until: now().addingTimeInterval(Double(max(1, seconds))), at: now())
                    logger.notice("mirror read limited by the backend", metadata: ["scope": "\(scope.rawValue)", "retry_after": "\(seconds)"])
                    break
                } catch .sessionExpired {
                    await noteAnswer(true)
                    refusedSessions.insert(signedIn.sessionID)
                    break
                } catch .notStaff {
                    await noteAnswer(true)
                    // Removed at Book Corners: their tokens are never read with again, and every
                    // access they have ends now, not at their next page view.
                    refusedSessions.insert(signedIn.sessionID)
                    do {
                        try await removal?.removeOwner(ofSession: signedIn.sessionID, noticedBy: "mirror-read")
                    } catch {
                        logger.error("access of someone no longer staff not ended", metadata: ["error": "\(error)"])
                    }
                    break
                } catch {
                    await noteAnswer(!error.meansNoAnswer)
                    // Down or answering nonsense: nothing is changed; the read is tried again on a later tick.
                    logger.warning("mirror read failed", metadata: ["scope": "\(scope.rawValue)", "error": "\(error)"])
                    break
                }
            }
        }
    }

    // MARK: What each scope wants

    func wanted(_ scope: MirrorScope) async -> Set<ReadPurpose> {
        switch scope {
        case .libraryList, .reportList, .photoList:
            var purposes: Set<ReadPurpose> = [.queueFront]
            if isSweepDue(scope) { purposes.insert(.pendingItems) }
            let missing = try? await nextMissingItem(scope)
            if await isPassDue(scope) || missing != nil { purposes.insert(.fullPass) }
            return purposes
        case .summary:
            return [.queueFront]
        case .statistics:
            guard let last = await (try? store.mirrorStatistics())?.lastConfirmedAt else { return [.fullPass] }
            return now().timeIntervalSince(last) >= configuration.statisticsInterval ? [.fullPass] : []
        case .libraryDetail:
            var purposes: Set<ReadPurpose> = libraryChecks.isEmpty ? [] : [.pendingItems]
            if await (try? nextMissingLibrary()) != nil { purposes.insert(.fullPass) }
            return purposes
        }
    }

    /// A pass under way goes on; a new one waits `passInterval` after the last one began.
    func isPassDue(_ scope: MirrorScope) async -> Bool {
        guard let state = try? await store.mirrorScopeState(scope) else { return false }
        if state.passStartedAt != nil { return true }
        guard let last = state.lastCompletePassStartedAt else { return true }
        return now().timeIntervalSince(last) >= configuration.passInterval
    }

    func isSweepDue(_ scope: MirrorScope) -> Bool {
        let sweep = sweeps[scope] ?? PendingSweep()
        if sweep.nextPage != nil { return true }
        guard sweep.totalPages > 1 else { return false }
        return sweep.lastStartedAt.map { now().timeIntervalSince($0) >= configuration.policy.pendingItemInterval } ?? true
    }

    /// A report or photo the last complete pass did not list, to confirm before any new pass page.
    func nextMissingItem(_ scope: MirrorScope) async throws -> MissingItem? {
        guard let passStart = try await store.mirrorScopeState(scope).lastCompletePassStartedAt else { return nil }
        switch scope {
        case .reportList: return try await store.reportsMissing(fromPassStartedAt: passStart, limit: 1).first.map(MissingItem.report)
        case .photoList: return try await store.photosMissing(fromPassStartedAt: passStart, limit: 1).first.map(MissingItem.photo)
        default: return nil
        }
    }

    func nextMissingLibrary() async throws -> (library: MirrorLibrary, passStart: Date)? {
        guard let passStart = try await store.mirrorScopeState(.libraryList).lastCompletePassStartedAt,
            let library = try await store.librariesMissing(fromPassStartedAt: passStart, limit: 1).first
        else { return nil }
        return (library, passStart)
    }

    // MARK: Helpers

    /// Items whose status the console does not know are left out, and said so in the log.
    func convert<Item, Row>(_ items: [Item], _ make: (Item) throws -> Row) -> [Row] {
        items.compactMap { item in
            do {
                return try make(item)
            } catch let unknown as UnknownStatusError {
                logger.error(
                    "backend item with an unknown status not mirrored",
                    metadata: [
                        "kind": "\(unknown.kind)", "id": "\(unknown.id)", "status": "\(unknown.status)",
                    ])
            } catch {
                logger.error("backend item not mirrored", metadata: ["error": "\(error)"])
            }
            return nil
        }
    }

    /// Runs a store write; a failure is logged (the database is ours: nothing a retry of the read would fix).
    func saving(_ write: () async throws -> Void) async {
        do {
            try await write()
        } catch is CancellationError {
            return  // shutting down: the next start reads it again
        } catch {
            logger.error("mirror could not store a read", metadata: ["error": "\(error)"])
        }
    }

    /// The most recently active staff member's credentials; `nil` when nobody is signed in.
    func currentCredentials() async -> (sessionID: String, credentials: StaffCredentials)? {
        do {
            return try await sessions.credentialsOfMostRecentSession(excluding: refusedSessions, now: now())
        } catch {
            logger.error("mirror could not look up a session", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Keeps when the backend last answered, for pages to say "has not answered since".
    func noteAnswer(_ answered: Bool) async {
        await saving {
            if answered {
                try await store.noteMirrorAnswered(at: now())
            } else {
                try await store.noteMirrorUnanswered(at: now())
            }
        }
    }
}
