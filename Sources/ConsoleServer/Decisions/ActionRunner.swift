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
    private let store: ModerationStore
    private let client: BackendClient
    /// Reads the checks before decisions: without retries of its own, so each read the check
    /// makes is one HTTP request, counted in its budget.
    private let checkClient: BackendClient
    private let sessions: StaffSessions
    private let logger: Logger
    private let bundleID: String
    private let forwardClientAddress: Bool
    /// How long a claim holds without renewal: a runner that dies leaves its actions to others after this.
    private let leaseSeconds: TimeInterval
    /// This runner's name on its claims.
    private let owner = UUID().uuidString
    private let doorbell = Doorbell()
    private let holds = HoldBook()
    /// Set by a graceful shutdown: no new action is claimed; the one in hand is finished.
    private let stopping = Atomic<Bool>(false)
    private let passes = PassMetrics(service: "runner")
    /// The read budget the check before each decision spends; `nil` (no mirror): unbudgeted.
    private let decisionChecks: (any DecisionCheckBudget)?

    /// How long an item the check does not find is looked for again before its decision fails.
    private let notFoundLimit: TimeInterval

    /// Local failures in a row after which an action is parked for a person to look at.
    static let localFailureLimit = 5

    init(
        store: ModerationStore, client: BackendClient, sessions: StaffSessions, logger: Logger,
        bundleID: String, forwardClientAddress: Bool, leaseSeconds: TimeInterval = 10, decisionChecks: (any DecisionCheckBudget)? = nil,
        checkClient: BackendClient? = nil, notFoundLimit: TimeInterval = ActionRunner.defaultNotFoundLimit
    ) {
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

    /// One pass over everything due now.
    func workThroughDueActions(now: Date = Date()) async throws {
        for candidate in try await store.dueActions(now: now) {
            guard !Task.isCancelled, !stopping.load(ordering: .relaxed) else { return }
            guard let id = candidate.id,
                let (action, tookOver) = try await store.claimNotingTakeover(id, owner: owner, leaseUntil: Date().addingTimeInterval(leaseSeconds), now: now)
            else { continue }  // another runner claimed it first
            if tookOver, action.unknownOutcomes > 0 {
                await waitOutSendInFlight(action)
                continue
            }
            await process(action)
        }
    }

    /// Sleeps until the next action is due (at most a second), or a nudge. After failed
    /// passes (our own database failing), waits longer each time, up to 30 s, so a broken
    /// database is not hammered 20 times a second.
    private func sleepUntilDueOrNudged(afterFailedPasses failures: Int) async {
        if failures > 0 {
            await doorbell.wait(atMost: .milliseconds(Int(min(30, 0.5 * pow(2, Double(min(failures, 10)))) * 1000)))
            return
        }
        let next = await (try? store.nextDueDate()) ?? nil
        let wait = min(max((next ?? .distantFuture).timeIntervalSinceNow, 0.05), 1)
        await doorbell.wait(atMost: .milliseconds(Int(wait * 1000)))
    }

    // MARK: One claimed action

    private func process(_ action: ModerationAction) async {
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

    /// Renews this runner's lease on `id` while it works, so that only a dead runner's claims expire.
    private func renewingLease(of id: Int64) -> Task<Void, Never> {
        Task { [store, owner, leaseSeconds, logger] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(Int(leaseSeconds * 1000 / 3)))
                guard !Task.isCancelled else { return }
                do {
                    try await store.renewLease(id, owner: owner, until: Date().addingTimeInterval(leaseSeconds))
                } catch ActionStoreError.lostClaim {
                    return
                } catch is CancellationError {
                    return  // the work ended while a renewal waited for the database
                } catch {
                    // A passing failure (the database busy with another process): the next beat tries again.
                    logger.warning("lease not renewed; trying again", metadata: ["action.id": "\(id)", "error": "\(error)"])
                }
            }
        }
    }

    private func decide(_ action: ModerationAction) async throws {
        guard let id = action.id, let credentials = try await credentials(for: action) else { return }
        if let until = await holds.until(forAny: [holdKey(action, .read), holdKey(action, .write)]), until > Date() {
            try await store.release(
                id, owner: owner, to: .waiting, nextAttemptAt: until,
                message: "Book Corners asked us to slow down; next try \(TimeText.utc(until)).", backendStatus: 429, now: Date())
            return
        }
        // Never sent unchecked: with the check's budget spent, it waits for the next window as for a 429.
        if let decisionChecks, case .wait(let until, _) = await decisionChecks.reserveDecisionCheck(action.targetKind.decisionCheckScope) {
            try await store.release(
                id, owner: owner, to: .waiting, nextAttemptAt: until,
                message: "Waiting to check this item at Book Corners before sending: the reads we allow ourselves are spent until \(TimeText.utc(until)); next try then.",
                backendStatus: nil, now: Date())
            return
        }
        let context = CallContext(requestID: action.requestId, forwardedFor: forwardClientAddress ? action.clientAddress : nil)
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
            try await store.release(
                id, owner: owner, to: .waiting, nextAttemptAt: until,
                message: "Waiting to check this item at Book Corners before sending: the reads we allow ourselves are spent until \(TimeText.utc(until)); next try then.",
                backendStatus: nil, now: Date())
            return
        }
        // Only an attempt whose outcome is unknown may have applied the status we find now;
        // otherwise someone else set it.
        if target.status == action.statusWanted, action.unknownOutcomes > 0 {
            try await finishApplied(action, target: target, backendStatus: 200, note: " (confirmed on re-check)")
            return
        }
        // Brought back by a restore: the console that ran before it most likely sent this already.
        if target.status == action.statusWanted, target.status != action.statusSeen, let restoredAt = action.restoredAt {
            try await finish(
                action, state: .conflict, target: target, statusAfter: target.statusText, backendStatus: nil,
                message: "Not sent again: Book Corners already shows this \(action.targetKind.rawValue) \(target.statusText), as your decision asked. The console's database was restored from a backup on \(TimeText.utc(restoredAt)) that was taken before this decision had gone out; the console most likely sent it before the restore, and the database the restore kept aside (the .before-restore file) has its outcome. Nothing more to do.")
            return
        }
        guard target.status == action.statusSeen else {
            try await finish(
                action, state: .conflict, target: target, statusAfter: target.statusText, backendStatus: nil,
                message: "Not sent: someone else changed this to \(target.statusText) before your decision went out (you saw it \(action.statusSeen.rawValue)). Look again and decide.")
            return
        }
        guard let wanted = WantedStatus(kind: action.targetKind, status: action.statusWanted) else {
            // Forms only offer a kind its own statuses; a row that says otherwise was not written by them.
            try await finish(
                action, state: .failed, target: target, statusAfter: target.statusText, backendStatus: nil,
                message: "Not sent: a \(action.targetKind.rawValue) cannot be \(action.statusWanted.rawValue).")
            return
        }
        // The lease now outlasts the send's deadline, and the send is cut off at it: no other
        // runner can claim this action while the PATCH may still arrive.
        let sendStart = Date()
        try await store.beginSend(id, owner: owner, leaseUntil: sendStart.addingTimeInterval(sendDeadline + leaseSeconds), now: sendStart)
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
                try await self.handle(sent, for: action, target: target, phase: .write)
            } else {
                try await self.finishApplied(action, target: target, backendStatus: 200, note: "")
            }
        }.value
    }

    /// The author's backend credentials, or nil after parking the action: no session, or
    /// one whose tokens this process cannot open (another token key).
    private func credentials(for action: ModerationAction) async throws -> StaffCredentials? {
        let id = action.id ?? 0
        let found: StaffCredentials?
        var why = ""
        do {
            found = try await sessions.credentials(forStaff: action.actorId)
        } catch {
            logger.error("stored sign-in could not be opened", metadata: ["action.id": "\(id)", "actor": "\(action.actorUsername)", "error": "\(error)"])
            found = nil
            why = " (the console could not read their stored sign-in; its token key may have changed)"
        }
        guard let found else {
            try await store.release(
                id, owner: owner, to: .parked, nextAttemptAt: Date(),
                message: "Waiting for \(action.actorUsername) to sign in again\(why); it is sent as soon as they do.",
                backendStatus: nil, now: Date())
            return nil
        }
        return found
    }

    /// What finding the item told us.
    private enum Lookup {
        case found(DecisionTarget)
        /// The reads the check allows did not show it: `why` says where it was looked for.
        case notFound(why: String)
        /// The second read of the check waits for the budget until then.
        case budgetSpent(until: Date)

        init<Item>(_ outcome: ListPlaceFinder<Item>.Outcome, target: (Item) -> DecisionTarget) {
            switch outcome {
            case .found(let item): self = .found(target(item))
            case .notFound(let why): self = .notFound(why: why)
            case .budgetSpent(let until): self = .budgetSpent(until: until)
            }
        }
    }

    /// Finds the item: a library by its slug; a report or photo, which have no read by id,
    /// with at most two list reads where the mirror places it (`ListPlaceFinder`), the second
    /// counted in the check's budget as the first was.
    private func look(at action: ModerationAction, credentials: StaffCredentials, context: CallContext) async throws -> Lookup {
        let reserve: @Sendable () async -> Date? = { [decisionChecks] in
            guard let decisionChecks, case .wait(let until, _) = await decisionChecks.reserveDecisionCheck(action.targetKind.decisionCheckScope) else { return nil }
            return until
        }
        switch action.targetKind {
        case .library:
            return .found(DecisionTarget(try await client.library(slug: action.targetKey, credentials: credentials, context: context)))
        case .report:
            guard let id = Int(action.targetKey) else { return .notFound(why: "“\(action.targetKey)” is not a report number") }
            let place = try await store.mirrorPlace(kind: .report, id: id)
            // A report's reason never changes: the form's, or else the mirror's, narrows every read.
            let reason = action.reportReason ?? place?.reason
            let finder = ListPlaceFinder<ModerationReport>(
                id: id, place: place?.key, seen: action.statusSeen, noun: "report",
                key: { MirrorPlace.Key(createdAt: $0.createdAt, id: $0.id) },
                count: { filter, after, before in
                    try await self.store.mirroredCount(kind: .report, status: filter.status, reason: reason, after: after, before: before)
                },
                read: { (filter, page) async throws(BackendError) in
                    try await self.checkClient.reports(
                        status: filter.status?.reportStatus.map(ReportStatusFilter.init) ?? .all, reason: reason.map(ReportReasonFilter.only) ?? .all,
                        page: page, credentials: credentials, context: context)
                },
                reserveSecondRead: reserve)
            return try await Lookup(finder.find(), target: DecisionTarget.init)
        case .photo:
            guard let id = Int(action.targetKey) else { return .notFound(why: "“\(action.targetKey)” is not a photo number") }
            let place = try await store.mirrorPlace(kind: .photo, id: id)
            let finder = ListPlaceFinder<ModerationPhoto>(
                id: id, place: place?.key, seen: action.statusSeen, noun: "photo",
                key: { MirrorPlace.Key(createdAt: $0.createdAt, id: $0.id) },
                count: { filter, after, before in
                    try await self.store.mirroredCount(kind: .photo, status: filter.status, reason: nil, after: after, before: before)
                },
                read: { (filter, page) async throws(BackendError) in
                    try await self.checkClient.photos(
                        status: filter.status?.libraryStatus.map(StatusFilter.init) ?? .all, page: page, credentials: credentials, context: context)
                },
                reserveSecondRead: reserve)
            return try await Lookup(finder.find(), target: DecisionTarget.init)
        }
    }

    /// How long an item the check does not find is looked for again, by default, before its decision fails.
    static let defaultNotFoundLimit: TimeInterval = 15 * 60

    /// The item was not where the mirror put it: it may have moved after a change made
    /// elsewhere, which the mirror's next reads show. It waits, longer each time, and says
    /// why; after `notFoundLimit` the decision fails, in words. Never a conflict: nobody is
    /// known to have changed it.
    private func waitOrGiveUp(_ action: ModerationAction, notFound why: String) async throws {
        let now = Date()
        let since = action.notFoundSince ?? now
        let giveUpAt = since.addingTimeInterval(notFoundLimit)
        guard now < giveUpAt else {
            try await finish(
                action, state: .failed, target: nil, statusAfter: action.statusSeen.rawValue, backendStatus: nil,
                message: "Not sent: \(why), and has not since \(TimeText.utc(since)). It may have been deleted, or changed outside the console; look at it again and decide.")
            return
        }
        let until = min(now.addingTimeInterval(min(300, max(30, now.timeIntervalSince(since) / 2))), giveUpAt)
        try await store.release(
            action.id ?? 0, owner: owner, to: .waiting, nextAttemptAt: until,
            message: "Not sent yet: \(why). It may have moved after a change made elsewhere; the console looks again \(TimeText.utc(until)), and stops trying at \(TimeText.utc(giveUpAt)).",
            backendStatus: nil, notFoundAt: now, now: now)
    }

    /// Another runner was sending this when its lease ran out: its PATCH may still arrive.
    /// The re-check waits until that send's deadline has passed, so it sees its effect.
    private func waitOutSendInFlight(_ action: ModerationAction) async {
        let now = Date()
        let until = now.addingTimeInterval(sendDeadline)
        do {
            try await store.release(
                action.id ?? 0, owner: owner, to: .waiting, nextAttemptAt: until,
                message: "Another console process was sending this when it stopped answering; checking Book Corners \(TimeText.utc(until)), once that send can no longer arrive, before sending again.",
                backendStatus: nil, now: now)
        } catch {
            // Its lease runs out again and the next runner does the same.
            logger.error("action taken over could not be put to wait", metadata: ["action.id": "\(action.id ?? 0)", "error": "\(error)"])
        }
    }

    /// The longest a send may take: the PATCH and a token refresh, each within the client's
    /// timeout, and a second for our own work. A send still going then is cut off (its outcome unknown).
    private var sendDeadline: TimeInterval {
        2 * Double(client.configuration.requestTimeout.components.seconds) + 1
    }

    /// Runs `body`, cancelling it and throwing a timeout if it has not finished in `seconds`.
    private func withDeadline(_ seconds: TimeInterval, _ body: @escaping @Sendable () async throws(BackendError) -> Void) async throws(BackendError) {
        let outcome = await withTaskGroup(of: Result<Void, BackendError>?.self) { group in
            group.addTask {
                do throws(BackendError) {
                    try await body()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch outcome {
        case .success?: return
        case .failure(let error)?: throw error
        case nil: throw .unavailable(.timedOut)
        }
    }

    private func send(
        _ wanted: WantedStatus, target: DecisionTarget, reason: String, credentials: StaffCredentials, context: CallContext
    ) async throws(BackendError) {
        switch wanted {
        case .library(let status):
            _ = try await client.setLibraryStatus(
                slug: target.slug, to: status, rejectionReason: status == .rejected ? reason : nil, credentials: credentials, context: context)
        case .report(let status):
            _ = try await client.setReportStatus(id: target.itemID, to: status, credentials: credentials, context: context)
        case .photo(let status):
            _ = try await client.setPhotoStatus(id: target.itemID, to: status, credentials: credentials, context: context)
        }
    }

    /// Which budget a call spends: reads and writes are limited (and held) separately.
    private enum Phase {
        case read, write
    }

    /// Outages wait with backoff, rate limits wait as told, an expired session parks; the
    /// backend refusing the decision itself (404, 422, 403) is final. A failed PATCH whose
    /// answer proves it never arrived is recorded as such, so a later re-check cannot take
    /// someone else's identical decision for ours.
    private func handle(_ error: BackendError, for action: ModerationAction, target: DecisionTarget?, phase: Phase) async throws {
        let id = action.id ?? 0
        let now = Date()
        let sendNotApplied = phase == .write && !error.writeMayHaveApplied
        switch error {
        case .rateLimited(let seconds):
            let until = now.addingTimeInterval(Double(seconds))
            await holds.set(holdKey(action, phase), until: until)
            try await store.release(
                id, owner: owner, to: .waiting, nextAttemptAt: until,
                message: "Book Corners asked us to slow down; next try \(TimeText.utc(until)).", backendStatus: 429,
                sendNotApplied: sendNotApplied, now: now)
        case .unavailable, .unexpectedAnswer:
            // Exponential backoff with full jitter: 2 s, 4 s, … capped at 5 minutes.
            let ceiling = min(300, 2 * pow(2, Double(min(action.attempts, 10))))
            let until = now.addingTimeInterval(Double.random(in: 1...max(1, ceiling)))
            try await store.release(
                id, owner: owner, to: .waiting, nextAttemptAt: until,
                message: "\(error.staffMessage) Next try \(TimeText.utc(until)).", backendStatus: nil, sendNotApplied: sendNotApplied, now: now)
        case .sessionExpired, .invalidCredentials:
            try await store.release(
                id, owner: owner, to: .parked, nextAttemptAt: now,
                message: "Waiting for \(action.actorUsername) to sign in again; it is sent as soon as they do.",
                backendStatus: 401, sendNotApplied: sendNotApplied, now: now)
        case .notFound:
            try await finish(action, state: .failed, target: target, statusAfter: target?.statusText ?? action.statusSeen.rawValue, backendStatus: 404,
                             message: "Not applied: this item no longer exists at Book Corners.")
        case .validation(let fields):
            try await finish(action, state: .failed, target: target, statusAfter: target?.statusText ?? action.statusSeen.rawValue, backendStatus: 422,
                             message: "Not applied: Book Corners refused it (\(fields.map { "\($0.location): \($0.message)" }.joined(separator: "; "))).")
        case .notStaff:
            try await finish(action, state: .failed, target: target, statusAfter: target?.statusText ?? action.statusSeen.rawValue, backendStatus: 403,
                             message: "Not applied: Book Corners says \(action.actorUsername) is no longer staff.")
        }
    }

    /// A failure of our own (the database, a stored value): wait longer each time, and after
    /// a few in a row park it with a reason, instead of retrying it many times a second.
    private func releaseAfterLocalFailure(_ error: any Error, action: ModerationAction) async {
        let id = action.id ?? 0
        let failures = action.localFailures + 1
        logger.error("action could not be processed", metadata: ["action.id": "\(id)", "failures": "\(failures)", "error": "\(error)"])
        let now = Date()
        do {
            if failures >= Self.localFailureLimit {
                try await store.release(
                    id, owner: owner, to: .parked, nextAttemptAt: now,
                    message: "Stopped after \(failures) failures inside the console itself (not at Book Corners). Whoever runs the console should check its log for action \(id); it is tried again when \(action.actorUsername) next signs in.",
                    backendStatus: nil, localFailure: true, now: now)
            } else {
                let until = now.addingTimeInterval(min(300, 5 * pow(2, Double(failures - 1))))
                try await store.release(
                    id, owner: owner, to: .waiting, nextAttemptAt: until,
                    message: "The console had a problem of its own sending this; next try \(TimeText.utc(until)).",
                    backendStatus: nil, localFailure: true, now: now)
            }
        } catch {
            // The claim stays until its lease runs out: then it is due again, no sooner.
            logger.error("action could not be released after a failure", metadata: ["action.id": "\(id)", "error": "\(error)"])
        }
    }

    private func finishApplied(_ action: ModerationAction, target: DecisionTarget, backendStatus: Int, note: String) async throws {
        try await finish(
            action, state: .applied, target: target, statusAfter: action.statusWanted.rawValue, backendStatus: backendStatus,
            message: DecisionOutcomeText.applied(action.statusWanted, kind: action.targetKind, name: target.name, city: target.city) + "\(note).",
            outcomeDetail: note.isEmpty ? "" : "confirmed on re-check: the answer to our change was lost, and Book Corners shows it applied")
    }

    /// Stores a final outcome, and writes what it established into the mirror first, so the
    /// page a moderator sees after the outcome shows what the backend says now.
    private func finish(
        _ action: ModerationAction, state: ModerationAction.Ending, target: DecisionTarget?, statusAfter: String, backendStatus: Int?,
        message: String, outcomeDetail: String = ""
    ) async throws {
        let now = Date()
        // An applied decision changed the item from what the moderator saw: a re-read after a lost
        // answer shows our own change, never the status before it. Otherwise, what the check read.
        let statusBefore = state == .applied ? action.statusSeen.rawValue : target?.statusText ?? action.statusSeen.rawValue
        let audit = AuditEntry(
            recordedAt: now, actorId: action.actorId, actorUsername: action.actorUsername,
            action: DecisionVerb.auditAction(kind: action.targetKind, statusAfter: action.statusWanted),
            targetKind: action.targetKind.rawValue, targetId: target.map { String($0.itemID) } ?? action.targetKey,
            targetSlug: target?.slug ?? (action.targetKind == .library ? action.targetKey : ""), targetName: target?.name ?? "",
            statusBefore: statusBefore, statusAfter: statusAfter, reason: action.reason,
            outcome: state.auditOutcome, outcomeDetail: outcomeDetail, backendStatus: backendStatus, requestId: action.requestId, clientAddress: action.clientAddress,
            userAgent: action.userAgent, itemCreatedAt: target?.createdAt, actionId: action.id)
        var messages: [OutboxMessage] = []
        if state == .applied, let target, let recipient = target.submitterID,
            let push = DecisionNotifications.notification(for: target, statusAfter: action.statusWanted, reason: action.reason)
        {
            let messageID = UUID().uuidString
            let headers = push.headers(
                messageID: messageID, bundleID: bundleID, collapseID: "\(target.kind.rawValue)-\(target.itemID)", now: now)
            let headerJSON = String(decoding: (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
            messages.append(OutboxMessage(
                id: messageID, actionId: action.id, recipientUserId: recipient, eventType: push.type,
                payload: push.payloadJSON(), headers: headerJSON, createdAt: now,
                sentByBookCorners: DecisionNotifications.bookCornersSendsItself(
                    kind: action.targetKind, from: action.statusSeen, to: action.statusWanted, reason: action.reason),
                expiresAt: push.expiration(now: now)))
        }
        // The mirror shows at once what this outcome established, so the page the moderator returns
        // to never shows the old status: our applied status; or after a conflict, the item as the
        // check read it (the change someone made outside the console is audited as observed, first).
        if let target {
            do {
                switch (state, target.status) {
                case (.applied, .some):
                    // From what the moderator saw (the mirror's copy), not the re-read after a lost answer.
                    try await store.mirrorDecisionOutcome(
                        kind: action.targetKind, itemID: target.itemID, from: action.statusSeen, to: action.statusWanted, reason: action.reason, at: now)
                case (.conflict, _):
                    try await target.mirrorRecord?.store(in: store)
                default:
                    break
                }
            } catch {
                // The mirror is a copy: its next read brings the decision anyway.
                logger.warning("mirror not updated after a decision", metadata: ["action.id": "\(action.id ?? 0)", "error": "\(error)"])
            }
        }
        try await store.finish(
            action.id ?? 0, owner: owner, state: state.state, message: message, backendStatus: backendStatus, audit: audit,
            notifications: messages, withdrawing: Self.withdrawal(undoneBy: action, target: target, audit: audit), now: now)
        logger.info("decision finished", metadata: ["action.id": "\(action.id ?? 0)", "outcome": "\(state.auditOutcome.rawValue)", "actor": "\(action.actorUsername)"])
    }

    /// What reopening a resolved report takes back: the "resolved" push of the decision it undoes,
    /// unless it has gone out, in which case the outcome says the reporter was already told.
    /// nil for any other decision (no other undone decision sent a push).
    static func withdrawal(undoneBy action: ModerationAction, target: DecisionTarget?, audit: AuditEntry) -> NotificationWithdrawal? {
        guard action.targetKind == .report, action.statusSeen == .resolved, action.statusWanted == .open else { return nil }
        let reporter = target?.submitterUsername.flatMap { $0.isEmpty ? nil : $0 }
        var entry = audit
        entry.action = "outbox.discard"
        entry.reason = "Not sent: the report was reopened before the message went out."
        entry.outcome = .succeeded
        entry.backendStatus = nil
        entry.itemCreatedAt = nil
        entry.actionId = nil
        return NotificationWithdrawal(
            targetKind: .report, targetKey: action.targetKey, undoneStatus: .resolved, eventType: .reportResolved,
            reason: "Not sent: the report was reopened before it went out.",
            alreadyToldNote: "\(reporter ?? "The reporter") was already told it was resolved.",
            withdrawnNote: "The push telling \(reporter ?? "the reporter") it was resolved had not gone out yet: it is discarded.",
            audit: entry)
    }

    /// Rate limits count per client and endpoint: reads and writes of each kind are held apart,
    /// so a 429 on reading the report list does not stand for the report PATCH budget.
    private func holdKey(_ action: ModerationAction, _ phase: Phase) -> String {
        "\(forwardClientAddress ? action.clientAddress : "console")|\(phase)|\(action.targetKind.rawValue)"
    }
}

/// When each endpoint may be called again.
private actor HoldBook {
    private var holds: [String: Date] = [:]

    /// The latest hold among `keys`, if any.
    func until(forAny keys: [String]) -> Date? { keys.compactMap { holds[$0] }.max() }

    func set(_ key: String, until: Date) {
        holds[key] = max(holds[key] ?? until, until)
    }
}
