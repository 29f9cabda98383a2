import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ModerationVocabulary
import ServiceLifecycle
import Synchronization

/// Reading the item before a decision is sent, and sending it: whose credentials, what the
/// backend holds now, and the PATCH within its deadline.
extension ActionRunner {
    /// The author's backend credentials, or nil after parking the action: no session, or
    /// one whose tokens this process cannot open (another token key).
    func credentials(for action: ModerationAction) async throws -> StaffCredentials? {
        let id = action.id ?? 0
        let found: StaffCredentials?
        var why = ""
        do {
            found = try await sessions.credentials(forStaff: action.actorId, now: clock.now)
        } catch {
            logger.error("stored sign-in could not be opened", metadata: ["action.id": "\(id)", "actor": "\(action.actorUsername)", "error": "\(error)"])
            found = nil
            why = " (the console could not read their stored sign-in; its token key may have changed)"
        }
        guard let found else {
            try await store.release(
                id, owner: owner, to: .parked, nextAttemptAt: clock.now,
                message: "Waiting for \(action.actorUsername) to sign in again\(why); it is sent as soon as they do.",
                backendStatus: nil, now: clock.now)
            return nil
        }
        return found
    }

    /// What finding the item told us.
    enum Lookup {
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

    /// One read of the check before a decision on `action`, from the check budget; without a
    /// mirror (no shared budget to reserve from) the read is counted when it goes out.
    func reserveCheck(_ action: ModerationAction) async -> BudgetGrant {
        guard let decisionChecks else { return .granted(.standard) }
        return await decisionChecks.reserveDecisionCheck(action.targetKind.decisionCheckScope)
    }

    /// Finds the item: a library by its slug; a report or photo, which have no read by id,
    /// with at most two list reads where the mirror places it (`ListPlaceFinder`), the second
    /// counted in the check's budget as the first was. Every kind reads through `checkClient`,
    /// one rule for all three: with the mirror on, one HTTP request per read, no retries.
    func look(at action: ModerationAction, credentials: StaffCredentials, context: CallContext) async throws -> Lookup {
        let reserve: @Sendable () async -> BudgetGrant = { await self.reserveCheck(action) }
        switch action.targetKind {
        case .library:
            return .found(DecisionTarget(try await checkClient.library(slug: action.targetKey, credentials: credentials, context: context)))
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
                read: { (filter, page, budget) async throws(BackendError) in
                    try await self.checkClient.reports(
                        status: filter.status?.reportStatus.map(ReportStatusFilter.init) ?? .all, reason: reason.map(ReportReasonFilter.only) ?? .all,
                        page: page, credentials: credentials, context: context.under(budget))
                },
                firstRead: context.budget, reserveSecondRead: reserve)
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
                read: { (filter, page, budget) async throws(BackendError) in
                    try await self.checkClient.photos(
                        status: filter.status?.libraryStatus.map(StatusFilter.init) ?? .all, page: page, credentials: credentials,
                        context: context.under(budget))
                },
                firstRead: context.budget, reserveSecondRead: reserve)
            return try await Lookup(finder.find(), target: DecisionTarget.init)
        }
    }

    /// How long an item the check does not find is looked for again, by default, before its decision fails.
    static let defaultNotFoundLimit: TimeInterval = 15 * 60

    /// The item was not where the mirror put it: the protocol's step (`afterNotFound`) waits,
    /// or after `notFoundLimit` fails the decision, in words.
    func waitOrGiveUp(_ action: ModerationAction, notFound why: String) async throws {
        let now = clock.now
        let step = rules.afterNotFound(action, why: why, notFoundLimit: notFoundLimit, now: now)
        try await carryOut(step, for: action, target: nil, notFoundAt: now, now: now)
    }

    /// Why a claimed-for decision waits instead (I1, I2), in the words its page shows.
    static func busyMessage(_ busy: ItemBusy, claimant: ModerationAction, owner: String) -> String {
        let at = TeamClock.stamp(busy.until)
        if busy.by.id == claimant.id, claimant.state == .sending {
            return
                "Another console process was sending this when it stopped answering; checking Book Corners at \(at), once that send can no longer arrive, before sending again."
        }
        if busy.by.id == claimant.id { return DecisionProtocol.notAnsweredMessage(recheckAt: busy.until) }
        let whose = busy.by.actorId == claimant.actorId ? "Your other decision" : "\(busy.by.actorUsername)'s decision"
        if busy.by.state != .sending, busy.by.inFlightUntil.map({ $0 >= busy.until }) == true {
            return
                "Waiting: \(whose) on this \(claimant.targetKind.rawValue) was sent and Book Corners has not answered; checking again at \(at) so that the two are not both sent."
        }
        return "Waiting: \(whose) on this \(claimant.targetKind.rawValue) is being sent; checking again at \(at), once its outcome is known."
    }

    /// The longest a send may take: the PATCH and a token refresh, each within the client's
    /// timeout, and a second for our own work. A send still going then is cut off (its outcome unknown).
    var sendDeadline: TimeInterval {
        2 * Double(client.requestTimeout.components.seconds) + 1
    }

    /// Runs `body`, cancelling it and throwing a timeout if it has not finished in `seconds`.
    func withDeadline(_ seconds: TimeInterval, _ body: @escaping @Sendable () async throws(BackendError) -> Void) async throws(BackendError) {
        let outcome = await withTaskGroup(of: Result<Void, BackendError>?.self) { group in
            group.addTask {
                do throws(BackendError) {
                    try await body()
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            group.addTask { [clock] in
                await clock.pause(seconds: seconds)
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

    func send(
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
}
