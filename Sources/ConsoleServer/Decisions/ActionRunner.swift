import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ModerationVocabulary
import ServiceLifecycle
import Synchronization

/// Works through recorded decisions: claims each (so that two processes on one database
/// never work one decision at once), checks the item is still as the moderator saw it,
/// sends the PATCH, and stores the outcome with its audit entry and notifications in one
/// transaction. Waits out rate limits and outages; parks decisions whose author has no
/// session; after a restart resumes everything unfinished, re-checking before re-sending.
final class ActionRunner: Service, Sendable {
    let store: ModerationStore
    let client: any DecisionBackend
    /// Reads the checks before decisions: without retries of its own, so each read the check
    /// makes is one HTTP request, counted in its budget.
    let checkClient: any DecisionBackend
    let sessions: StaffSessions
    let logger: Logger
    let bundleID: String
    let forwardClientAddress: Bool
    /// How long a claim holds without renewal: a runner that dies leaves its actions to others after this.
    let leaseSeconds: TimeInterval
    /// This runner's name on its claims.
    let owner: String
    /// The decision protocol's rules: the in-flight bound (I2) and the item guard (I1).
    let rules: DecisionProtocol
    /// The retry jitter's random source.
    let jitter: JitterSource
    /// Makes the id of each push queued (the outbox message's and the APNs id).
    let messageIDs: @Sendable () -> String
    let doorbell: Doorbell
    /// What "now" is for every state the runner stores, and what its waits are measured on.
    let clock: ServiceClock
    let holds = HoldBook()
    /// The team's clock, for the times the runner's messages name.
    let clocks: TeamClockCache
    /// Set by a graceful shutdown: no new action is claimed; the one in hand is finished.
    let stopping = Atomic<Bool>(false)
    let passes = PassMetrics(service: "runner")
    /// The read budget the check before each decision spends; `nil` (no mirror): unbudgeted.
    let decisionChecks: (any DecisionCheckBudget)?

    /// How long an item the check does not find is looked for again before its decision fails.
    let notFoundLimit: TimeInterval
    /// Ends every access of an author whose tokens Book Corners answers "Staff access required".
    let removal: StaffRemoval?

    /// Local failures in a row after which an action is parked for a person to look at.
    static let localFailureLimit = 5

    init(
        store: ModerationStore, client: any DecisionBackend, sessions: StaffSessions, logger: Logger,
        bundleID: String, forwardClientAddress: Bool, leaseSeconds: TimeInterval = 10, decisionChecks: (any DecisionCheckBudget)? = nil,
        checkClient: (any DecisionBackend)? = nil, notFoundLimit: TimeInterval = ActionRunner.defaultNotFoundLimit,
        clock: ServiceClock = .system, rules: DecisionProtocol = DecisionProtocol(), owner: String = UUID().uuidString,
        jitter: JitterSource = .system, messageIDs: @escaping @Sendable () -> String = { UUID().uuidString }, removal: StaffRemoval? = nil
    ) {
        self.removal = removal
        self.clock = clock
        self.rules = rules
        self.owner = owner
        self.jitter = jitter
        self.messageIDs = messageIDs
        self.doorbell = Doorbell(clock: clock)
        self.clocks = TeamClockCache(store: store)
        self.notFoundLimit = notFoundLimit
        self.decisionChecks = decisionChecks
        self.store = store
        self.client = client
        self.checkClient = checkClient ?? client
        self.sessions = sessions
        self.logger = logger
        self.bundleID = bundleID
        self.forwardClientAddress = forwardClientAddress
        self.leaseSeconds = leaseSeconds
    }

    /// Asks the runner to look for due work now (a decision was just recorded).
    func nudge() {
        doorbell.ring()
    }

    /// Works until a graceful shutdown, which lets the action in hand finish (its PATCH and
    /// outcome, bounded by the client's timeout) and claims nothing more; one still unfinished
    /// when the shutdown's time runs out is cancelled, and its lease lets the next runner re-check it.
    func run() async throws {
        await withGracefulShutdownHandler {
            var failedPasses = 0
            while !self.stopping.load(ordering: .relaxed) && !Task.isCancelled {
                do {
                    try await self.passes.measure { try await self.workThroughDueActions() }
                    failedPasses = 0
                } catch {
                    failedPasses += 1
                    self.logger.error("action runner pass failed", metadata: ["error": "\(error)", "failures": "\(failedPasses)"])
                }
                guard !self.stopping.load(ordering: .relaxed) else { break }
                await self.sleepUntilDueOrNudged(afterFailedPasses: failedPasses)
            }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
            self.doorbell.ring()
        }
    }

    /// One pass over everything due now, on the team's clock: the times its messages name
    /// ("next try 2026-11-27 09:40 CET") are read on pages beside the team's other times.
    /// The clock is read only when something is due: an idle runner reads nothing more.
    func workThroughDueActions(now: Date? = nil) async throws {
        let now = now ?? clock.now
        let due = try await store.dueActions(now: now)
        guard !due.isEmpty else { return }
        try await TeamClock.$current.withValue(await clocks.clock()) {
            try await workThrough(due, now: now)
        }
    }

    private func workThrough(_ due: [ModerationAction], now: Date) async throws {
        for candidate in due {
            guard !Task.isCancelled, !stopping.load(ordering: .relaxed) else { return }
            guard let id = candidate.id else { continue }
            let claim = try await store.claim(
                id, owner: owner, leaseUntil: clock.now.addingTimeInterval(leaseSeconds), now: now, guardsItem: rules.guardsItem,
                busy: { [owner] busy in Self.busyMessage(busy, claimant: candidate, owner: owner) })
            // Another runner claimed it first, or its item is busy (it now waits, in words).
            guard case .claimed(let action) = claim else { continue }
            await process(action)
        }
    }

    /// Sleeps until the next action is due (at most a second), or a nudge. After failed
    /// passes (our own database failing), waits longer each time, up to 30 s, so a broken
    /// database is not hammered 20 times a second.
    func sleepUntilDueOrNudged(afterFailedPasses failures: Int) async {
        if failures > 0 {
            await doorbell.wait(atMost: .milliseconds(Int(min(30, 0.5 * pow(2, Double(min(failures, 10)))) * 1000)))
            return
        }
        let next = await (try? store.nextDueDate()) ?? nil
        let wait = min(max((next ?? .distantFuture).timeIntervalSince(clock.now), 0.05), 1)
        await doorbell.wait(atMost: .milliseconds(Int(wait * 1000)))
    }

    // MARK: One claimed action

    func process(_ action: ModerationAction) async {
        guard let id = action.id else { return }
        let heartbeat = renewingLease(of: id)
        defer { heartbeat.cancel() }
        do {
            try await decide(action)
        } catch ActionStoreError.lostClaim {
            // Another runner took it over (our lease ran out): its outcome stands.
            logger.debug("claim lost", metadata: ["action.id": "\(id)"])
        } catch {
            await releaseAfterLocalFailure(error, action: action)
        }
    }

    /// Renews this runner's lease on `id` while it works, so that only a dead runner's claims
    /// expire. A lease lost (run out during a stall, taken over) is not renewed again; the task
    /// lives as long as the work all the same, so its life never depends on a database answer.
    func renewingLease(of id: Int64) -> Task<Void, Never> {
        Task { [store, owner, leaseSeconds, logger, clock] in
            var lost = false
            while !Task.isCancelled {
                await clock.pause(seconds: leaseSeconds / 3)
                guard !Task.isCancelled else { return }
                guard !lost else { continue }
                do {
                    try await store.renewLease(id, owner: owner, until: clock.now.addingTimeInterval(leaseSeconds), now: clock.now)
                } catch ActionStoreError.lostClaim {
                    lost = true  // beginSend and finish refuse a lost claim: the work stops there
                } catch is CancellationError {
                    return  // the work ended while a renewal waited for the database
                } catch {
                    // A passing failure (the database busy with another process): the next beat tries again.
                    logger.warning("lease not renewed; trying again", metadata: ["action.id": "\(id)", "error": "\(error)"])
                }
            }
        }
    }

    func decide(_ action: ModerationAction) async throws {
        guard let id = action.id, let credentials = try await credentials(for: action) else { return }
        if let until = await holds.until(forAny: [holdKey(action, .read), holdKey(action, .write)]), until > clock.now {
            try await carryOut(rules.heldBack(until: until), for: action, target: nil, now: clock.now)
            return
        }
        let checkBudget: CallBudget
        switch await reserveCheck(action) {
        case .granted(let budget):
            checkBudget = budget
        case .wait(let until, _):
            try await carryOut(rules.checkBudgetSpent(until: until), for: action, target: nil, now: clock.now)
            return
        }
        let context = CallContext(requestID: action.requestId, forwardedFor: forwardClientAddress ? action.clientAddress : nil, budget: checkBudget)
        let lookup: Lookup
        do {
            lookup = try await look(at: action, credentials: credentials, context: context)
        } catch let error as BackendError {
            try await handle(error, for: action, target: nil, phase: .read)
            return
        }
        let target: DecisionTarget
        switch lookup {
        case .found(let found):
            target = found
        case .notFound(let why):
            try await waitOrGiveUp(action, notFound: why)
            return
        case .budgetSpent(let until):
            try await carryOut(rules.checkBudgetSpent(until: until), for: action, target: nil, now: clock.now)
            return
        }
        // A decision made after this one that went out, or one applied since this was made:
        // this one must not be sent over it, nor take its effect for its own.
        // A later one whose outcome is unknown counts only if the item is as it wanted (the check,
        // read after its bound, shows whether it acted).
        let laterSent = try await store.laterDecisionSent(after: action).flatMap { later in
            later.state == .applied || later.statusWanted == target.status ? later : nil
        }
        let decidedSince = try await store.decisionAppliedSince(
            kind: action.targetKind, targetId: String(target.itemID), since: action.createdAt, excludingAction: id)
        switch rules.verdict(for: action, found: target.status, decidedSince: decidedSince != nil || laterSent != nil) {
        case .confirmApplied:
            try await finishApplied(action, target: target, backendStatus: 200, note: " (confirmed on re-check)")
            return
        case .alreadyAppliedBeforeRestore(let restoredAt):
            // Brought back by a restore: the console that ran before it most likely sent this already.
            try await finish(
                action, state: .conflict, target: target, statusAfter: target.statusText, backendStatus: nil,
                message:
                    "Not sent again: Book Corners already shows this \(action.targetKind.rawValue) \(target.statusText), as your decision asked. The console's database was restored from a backup on \(TeamClock.stamp(restoredAt)) that was taken before this decision had gone out; the console most likely sent it before the restore, and the database the restore kept aside (the .before-restore file) has its outcome. Nothing more to do."
            )
            return
        case .conflict:
            try await finish(
                action, state: .conflict, target: target, statusAfter: target.statusText, backendStatus: nil,
                message: try await conflictMessage(action, target: target, decidedSince: decidedSince, laterSent: laterSent))
            return
        case .send:
            break
        }
        guard let wanted = WantedStatus(kind: action.targetKind, status: action.statusWanted) else {
            // Forms only offer a kind its own statuses; a row that says otherwise was not written by them.
            try await finish(
                action, state: .failed, target: target, statusAfter: target.statusText, backendStatus: nil,
                message: "Not sent: a \(action.targetKind.rawValue) cannot be \(action.statusWanted.rawValue).")
            return
        }
        // The lease now outlasts the send's deadline, and the send is cut off at it; past the
        // deadline, the in-flight bound (I2) keeps every runner off this item until Book
        // Corners can no longer act on this PATCH.
        let sendStart = clock.now
        let inFlightUntil = rules.inFlightUntil(sendStartedAt: sendStart, sendDeadline: sendDeadline)
        try await store.beginSend(
            id, owner: owner, leaseUntil: sendStart.addingTimeInterval(sendDeadline + leaseSeconds), inFlightUntil: inFlightUntil, now: sendStart)
        let sent: BackendError?
        do {
            try await withDeadline(sendDeadline) { () async throws(BackendError) in
                try await self.send(wanted, target: target, reason: action.reason, credentials: credentials, context: context)
            }
            sent = nil
        } catch {
            sent = error
        }
        // Recorded in a task of its own: a shutdown whose grace runs out now cancels this one,
        // and GRDB rolls back a cancelled task's write, but what Book Corners did must be kept.
        try await Task {
            if let sent {
                try await self.handle(sent, for: action, target: target, phase: .write, inFlightUntil: inFlightUntil)
            } else {
                try await self.finishApplied(action, target: target, backendStatus: 200, note: "")
            }
        }.value
    }
}
