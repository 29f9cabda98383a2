import Foundation
import GRDB

/// Why the store refused to record or move an action.
public enum ActionStoreError: Error, Sendable {
    /// The idempotency key already belongs to a different decision (another item, status or
    /// author): the form was reused for something it was not made for.
    case keyReused(existing: ModerationAction)
    /// The action was not in a state the move expects, or another runner holds it: someone
    /// else has it now. The runner lets it go quietly.
    case lostClaim(actionID: Int64)
    /// Only a decision not yet being sent can be cancelled, and only by its author: `current` is
    /// its state now (nil when there is no such decision of theirs).
    case notCancellable(current: ModerationAction.State?)
}

/// What asking to claim a decision came to.
public enum ActionClaimOutcome: Sendable {
    /// This runner holds it now.
    case claimed(ModerationAction)
    /// Due, but its item was busy: it now waits until the item is free.
    case itemBusy(ItemBusy)
    /// Another runner has it, or it is not due.
    case notClaimed
}

/// Why a decision's item cannot be checked or sent now: `by`'s PATCH may still be in flight, or
/// `by` is claimed by a live runner (which may be about to send it). `by` is the decision itself
/// when its own last PATCH may still be in flight.
public struct ItemBusy: Sendable {
    public let until: Date
    public let by: ModerationAction
}

/// A recorded decision, and whether this call recorded it or an earlier one did.
public struct RecordedAction: Sendable {
    public let action: ModerationAction
    public let isNew: Bool
}

extension ModerationStore {
    /// Records a decision and ends any claim on its item; the same idempotency key always answers the one action it made.
    /// A key reused for a different item, decision or author is refused.
    public func record(_ action: ModerationAction) async throws -> RecordedAction {
        try await writer.write { db in
            if let existing = try ModerationAction.filter(ModerationAction.Columns.idempotencyKey == action.idempotencyKey).fetchOne(db) {
                let same =
                    existing.targetKind == action.targetKind && existing.targetKey == action.targetKey
                    && existing.statusWanted == action.statusWanted && existing.actorId == action.actorId
                guard same else { throw ActionStoreError.keyReused(existing: existing) }
                return RecordedAction(action: existing, isNew: false)
            }
            var inserted = action
            try inserted.insert(db)
            // A decision ends whatever claim is on the item, in the transaction that records it.
            try Self.endClaimsOnDecision(
                db, target: ItemClaim.Target(kind: action.targetKind, key: action.targetKey), decider: action.actorUsername, now: action.createdAt)
            return RecordedAction(action: inserted, isNew: true)
        }
    }

    public func action(id: Int64) async throws -> ModerationAction? {
        try readNow { db in try ModerationAction.fetchOne(db, key: id) }
    }

    /// Every decision recorded, oldest first (for checks that read them all, such as the simulation's).
    public func allActions() async throws -> [ModerationAction] {
        try await writer.read { db in try ModerationAction.order(Column("id")).fetchAll(db) }
    }

    /// Every decision not yet at its end (queued, waiting, being sent or held for its author),
    /// in the order runners take them: what the expected send times are worked out from.
    public func unfinishedActions() async throws -> [ModerationAction] {
        try readNow { db in
            try ModerationAction.fetchAll(
                db, sql: "SELECT * FROM action WHERE state IN ('queued', 'waiting', 'sending', 'parked') ORDER BY nextAttemptAt, id")
        }
    }

    /// Actions a runner may claim now: due and waiting their turn, or `sending` with an
    /// expired lease (the runner that held it died). This only reads; `claim` decides (and puts
    /// one whose PATCH may still be in flight to wait, in words).
    public func dueActions(now: Date, limit: Int = 50) async throws -> [ModerationAction] {
        try await writer.read { db in
            try ModerationAction.fetchAll(
                db,
                sql: """
                    SELECT * FROM action
                    WHERE (state IN ('queued', 'waiting') AND nextAttemptAt <= ?)
                       OR (state = 'sending' AND (leaseExpiresAt IS NULL OR leaseExpiresAt <= ?))
                    ORDER BY nextAttemptAt, id LIMIT ?
                    """,
                arguments: [now, now, limit])
        }
    }

    /// The soonest time an unfinished action is due or a lease runs out, for the runner's sleep.
    public func nextDueDate() async throws -> Date? {
        try await writer.read { db in
            try Date.fetchOne(
                db,
                sql: """
                    SELECT MIN(due) FROM (
                        SELECT MIN(nextAttemptAt) AS due FROM action WHERE state IN ('queued', 'waiting')
                        UNION ALL
                        SELECT MIN(COALESCE(leaseExpiresAt, nextAttemptAt)) FROM action WHERE state = 'sending')
                    """)
        }
    }

    /// What every signed-in page's "Pending actions" panel lists, in one read: a staff
    /// member's decisions without a final outcome, and those that ended in a conflict or
    /// failure since `since`, oldest first. One cached statement: this runs on every page view.
    public func pendingActionsPanel(actorId: Int, since: Date) async throws -> [ModerationAction] {
        try readNow { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT * FROM action WHERE actorId = ?
                    AND (state NOT IN ('applied', 'conflict', 'failed', 'cancelled') OR (state IN ('conflict', 'failed', 'cancelled') AND updatedAt >= ?))
                    ORDER BY id
                    """)
            return try ModerationAction.fetchAll(statement, arguments: [actorId, since])
        }
    }

    /// A staff member's decisions on items of `kind` recorded since `since`, newest first, the
    /// latest per item only: what a list shows in place of the rows those decisions moved.
    public func recentDecisions(actorId: Int, kind: ModerationAction.TargetKind, since: Date) async throws -> [ModerationAction] {
        try readNow { db in
            let statement = try db.cachedStatement(
                sql: "SELECT * FROM action WHERE actorId = ? AND targetKind = ? AND createdAt >= ? ORDER BY id DESC LIMIT 200")
            let actions = try ModerationAction.fetchAll(statement, arguments: [actorId, kind.rawValue, since])
            var seen: Set<String> = []
            return actions.filter { seen.insert($0.targetKey).inserted }
        }
    }

    // MARK: Moves of the state machine (each names the states it expects)

    /// Claims a due action for `owner` until `leaseUntil`: queued or waiting and due, or
    /// sending with an expired lease. Answers the claimed action, or nil when another runner
    /// got it first, it is no longer due, or its item is busy (see `claim(_:owner:leaseUntil:now:guardsItem:busy:)`).
    public func claim(_ id: Int64, owner: String, leaseUntil: Date, now: Date) async throws -> ModerationAction? {
        guard case .claimed(let action) = try await claim(id, owner: owner, leaseUntil: leaseUntil, now: now, busy: { _ in "" }) else { return nil }
        return action
    }

    /// Claims a due action for `owner` until `leaseUntil`, in one guarded UPDATE that is the
    /// decision protocol's I1: it is refused while this decision's own last PATCH may still be in
    /// flight, or while another decision on the same item is claimed by a live runner or has a
    /// PATCH that may still be in flight. A due action refused so is moved to wait until its
    /// item is free, with the words `busy` gives it, in the same transaction, so no runner
    /// spins on it. `guardsItem: false` leaves the item guard out: only the simulation's proof
    /// that it finds the faults without it uses that.
    public func claim(
        _ id: Int64, owner: String, leaseUntil: Date, now: Date, guardsItem: Bool = true,
        busy: @escaping @Sendable (ItemBusy) -> String
    ) async throws -> ActionClaimOutcome {
        try await writer.write { db in
            let due = """
                ((state IN ('queued', 'waiting') AND nextAttemptAt <= ?) OR (state = 'sending' AND (leaseExpiresAt IS NULL OR leaseExpiresAt <= ?)))
                """
            let itemFree =
                guardsItem
                ? """
                AND NOT EXISTS (
                    SELECT 1 FROM action other
                    WHERE other.targetKind = action.targetKind AND other.targetKey = action.targetKey AND other.id != action.id
                      AND ((other.state = 'sending' AND other.leaseExpiresAt > ?) OR other.inFlightUntil > ?))
                """ : ""
            var arguments: StatementArguments = [owner, leaseUntil, now, id, now, now, now]
            if guardsItem { arguments += [now, now] }
            try db.execute(
                sql: """
                    UPDATE action SET state = 'sending', claimedBy = ?, leaseExpiresAt = ?, updatedAt = ?
                    WHERE id = ? AND \(due) AND (inFlightUntil IS NULL OR inFlightUntil <= ?) \(itemFree)
                    """,
                arguments: arguments)
            if db.changesCount == 1, let claimed = try ModerationAction.fetchOne(db, key: id) { return .claimed(claimed) }
            // Not claimed: taken by another runner, not due, or due with its item busy.
            guard let action = try ModerationAction.fetchOne(db, sql: "SELECT * FROM action WHERE id = ? AND \(due)", arguments: [id, now, now]),
                let blocked = try Self.itemBusy(db, action, now: now, guardsItem: guardsItem)
            else { return .notClaimed }
            try db.execute(
                sql: """
                    UPDATE action SET state = 'waiting', nextAttemptAt = ?, outcomeMessage = ?, backendStatus = NULL,
                        claimedBy = NULL, leaseExpiresAt = NULL, updatedAt = ?
                    WHERE id = ? AND \(due)
                    """,
                arguments: [blocked.until, busy(blocked), now, id, now, now])
            return db.changesCount == 1 ? .itemBusy(blocked) : .notClaimed
        }
    }

    /// What keeps `action`'s item busy at `now`, and until when: its own PATCH that may still be
    /// in flight, or another decision's (claimed by a live runner: looked at again within 2 s or
    /// when its lease ends, whichever is sooner; its answer lost: until its bound). nil when free.
    private static func itemBusy(_ db: Database, _ action: ModerationAction, now: Date, guardsItem: Bool) throws -> ItemBusy? {
        if let own = action.inFlightUntil, own > now { return ItemBusy(until: own, by: action) }
        guard guardsItem, let id = action.id else { return nil }
        let others = try ModerationAction.fetchAll(
            db,
            sql: """
                SELECT * FROM action WHERE targetKind = ? AND targetKey = ? AND id != ?
                  AND ((state = 'sending' AND leaseExpiresAt > ?) OR inFlightUntil > ?)
                ORDER BY id
                """,
            arguments: [action.targetKind.rawValue, action.targetKey, id, now, now])
        let soon = now.addingTimeInterval(2)
        let busy = others.map { other -> ItemBusy in
            // Still claimed by a live runner (most often answered within the second): soon. Its
            // PATCH's answer lost (no live claim): once Book Corners can no longer act on it.
            if other.state == .sending, let lease = other.leaseExpiresAt, lease > now { return ItemBusy(until: min(lease, soon), by: other) }
            return ItemBusy(until: max(other.inFlightUntil ?? soon, now), by: other)
        }
        return busy.max { $0.until < $1.until }
    }

    /// Extends the lease `owner` holds (never shortens it: a send's lease covers its deadline);
    /// throws `lostClaim` when it holds none.
    /// A lease that has run out is never renewed (`now`): another runner may have claimed the
    /// item meanwhile, and a revived lease would let two send on it.
    public func renewLease(_ id: Int64, owner: String, until: Date, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE action SET leaseExpiresAt = CASE WHEN ? > leaseExpiresAt THEN ? ELSE leaseExpiresAt END
                    WHERE id = ? AND state = 'sending' AND claimedBy = ? AND leaseExpiresAt > ?
                    """,
                arguments: [until, until, id, owner, now])
            guard db.changesCount == 1 else { throw ActionStoreError.lostClaim(actionID: id) }
        }
    }

    /// Notes that a PATCH is about to go out: one more attempt, and one more whose outcome
    /// is unknown until an answer proves otherwise (a crash from here on leaves it unknown).
    /// The lease is extended to `leaseUntil` (the send's deadline and more; nil: kept as it is) in the same
    /// statement, so no other runner can claim the action while the PATCH may be in flight.
    /// Refused (`lostClaim`) once the lease has run out: another runner may claim the action
    /// at any moment, and two must never send it.
    /// `inFlightUntil` is the protocol's bound (I2): until then this PATCH counts as in flight
    /// unless an answer settles it, and nothing on its item is checked or sent.
    /// Refused too while another decision on the item is claimed by a live runner or may be in
    /// flight: the item guard (I1) is asserted again at the last step before a PATCH.
    public func beginSend(_ id: Int64, owner: String, leaseUntil: Date? = nil, inFlightUntil: Date? = nil, now: Date) async throws {
        try await writer.write { db in
            let busy = try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (
                        SELECT 1 FROM action mine JOIN action other
                          ON other.targetKind = mine.targetKind AND other.targetKey = mine.targetKey AND other.id != mine.id
                        WHERE mine.id = ? AND ((other.state = 'sending' AND other.leaseExpiresAt > ?) OR other.inFlightUntil > ?))
                    """,
                arguments: [id, now, now])
            guard busy != true else { throw ActionStoreError.lostClaim(actionID: id) }
            try Self.moveClaimed(
                db, id, owner: owner, to: .sending,
                set: """
                    attempts = attempts + 1, unknownOutcomes = unknownOutcomes + 1, notFoundSince = NULL, inFlightUntil = ?,
                    leaseExpiresAt = CASE WHEN ? > leaseExpiresAt THEN ? ELSE leaseExpiresAt END
                    """,
                arguments: [inFlightUntil, leaseUntil, leaseUntil], now: now, leaseLiveAt: now)
        }
    }

    /// Gives a claimed action back to wait until `nextAttemptAt`, or parks it. `sendNotApplied`
    /// says the attempt just made provably never reached the backend; `localFailure` counts
    /// a failure of our own (a reset to zero otherwise).
    /// `notFoundAt`: the check did not find the item; the first such time is kept in
    /// `notFoundSince` (the other releases leave it as it is).
    public func release(
        _ id: Int64, owner: String, to state: ModerationAction.State, nextAttemptAt: Date, message: String, backendStatus: Int?,
        sendNotApplied: Bool = false, localFailure: Bool = false, notFoundAt: Date? = nil, now: Date
    ) async throws {
        precondition(state == .waiting || state == .parked, "release takes waiting or parked")
        try await moveClaimed(
            id, owner: owner, to: state,
            set: """
                nextAttemptAt = CASE WHEN ? = 0 AND inFlightUntil > ? THEN inFlightUntil ELSE ? END,
                inFlightUntil = CASE WHEN ? = 1 THEN NULL ELSE inFlightUntil END,
                outcomeMessage = ?, backendStatus = ?, claimedBy = NULL, leaseExpiresAt = NULL,
                unknownOutcomes = CASE WHEN unknownOutcomes > ? THEN unknownOutcomes - ? ELSE 0 END,
                localFailures = CASE WHEN ? THEN localFailures + 1 ELSE 0 END,
                notFoundSince = COALESCE(notFoundSince, ?)
                """,
            arguments: [
                sendNotApplied ? 1 : 0, nextAttemptAt, nextAttemptAt, sendNotApplied ? 1 : 0, message, backendStatus,
                sendNotApplied ? 1 : 0, sendNotApplied ? 1 : 0, localFailure, notFoundAt,
            ], now: now)
    }

    /// Cancels the author's decision `id` before it is sent, with `audit`, in one transaction;
    /// throws `notCancellable` once a runner has claimed it, once an attempt may have reached
    /// Book Corners (its outcome unknown: the change may already have been made), or once it ended.
    @discardableResult
    public func cancel(_ id: Int64, actorId: Int, audit: AuditEntry, now: Date) async throws -> ModerationAction {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE action SET state = 'cancelled', outcomeMessage = ?, updatedAt = ?, nextAttemptAt = ?
                    WHERE id = ? AND actorId = ? AND state IN (\(Self.sqlList(ModerationAction.State.sources(of: .cancelled))))
                      AND unknownOutcomes = 0
                    """,
                arguments: ["Cancelled by \(audit.actorUsername) before it was sent.", now, now, id, actorId])
            guard db.changesCount == 1, let cancelled = try ModerationAction.fetchOne(db, key: id) else {
                let current = try ModerationAction.fetchOne(db, key: id).flatMap { $0.actorId == actorId ? $0.state : nil }
                throw ActionStoreError.notCancellable(current: current)
            }
            var entry = audit
            entry.actionId = id
            try self.append(&entry, db)
            return cancelled
        }
    }

    /// A signed-in staff member's parked actions become due again.
    /// Holds every decision of `actorId` not yet claimed (Book Corners says they are no longer
    /// staff): parked with `message`, which colleagues read on its page; sent only if they are
    /// staff again and sign in. One whose PATCH may have gone out (an unknown outcome) is left
    /// to its re-check, which alone can say whether it applied. Answers how many were held.
    @discardableResult
    public func parkDecisions(actorId: Int, message: String, now: Date) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE action SET state = 'parked', outcomeMessage = ?, backendStatus = \(ModerationAction.heldStatus), nextAttemptAt = ?, updatedAt = ?
                    WHERE actorId = ? AND state IN ('queued', 'waiting', 'parked') AND unknownOutcomes = 0
                    AND NOT (state = 'parked' AND COALESCE(backendStatus, 0) = \(ModerationAction.heldStatus))
                    """,
                arguments: [message, now, now, actorId])
            return db.changesCount
        }
    }

    public func unpark(actorId: Int, now: Date) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE action SET state = 'queued', nextAttemptAt = ?, updatedAt = ?, localFailures = 0
                    WHERE actorId = ? AND state IN (\(Self.sqlList(ModerationAction.State.sources(of: .queued))))
                    """,
                arguments: [now, now, actorId])
        }
    }

    /// Gives a claimed action its final outcome, with its audit entry and notifications (and,
    /// for an undo, `withdrawal` of the undone decision's pushes), all in one transaction:
    /// either all are stored or none is. Throws `lostClaim` when
    /// `owner` no longer holds the action (another runner finished or took it over).
    public func finish(
        _ id: Int64, owner: String, state: ModerationAction.State, message: String, backendStatus: Int?, audit: AuditEntry,
        notifications: [OutboxMessage], withdrawing withdrawal: NotificationWithdrawal? = nil, now: Date
    ) async throws {
        precondition(state.isFinal, "finish takes a final state")
        try await writer.write { db in
            // An undo stops the pushes of the decision it undoes that have not gone out, and its
            // message says whether they had; rolled back with the rest if the claim was lost.
            var message = message
            if let withdrawal, state == .applied {
                message += try withdrawNotifications(db, withdrawal, undoingActionID: id, now: now)
            }
            try Self.moveClaimed(
                db, id, owner: owner, to: state,
                set: "outcomeMessage = ?, backendStatus = ?, claimedBy = NULL, leaseExpiresAt = NULL, inFlightUntil = NULL",
                arguments: [message, backendStatus], now: now)
            var entry = audit
            entry.actionId = id
            try self.append(&entry, db)
            for message in notifications { try message.insert(db) }
        }
    }

    private func moveClaimed(
        _ id: Int64, owner: String, to state: ModerationAction.State, set: String, arguments: StatementArguments, now: Date
    ) async throws {
        try await writer.write { db in try Self.moveClaimed(db, id, owner: owner, to: state, set: set, arguments: arguments, now: now) }
    }

    /// The one UPDATE every move of a claimed action goes through: it must still be `sending`
    /// and held by `owner`, and the move must be one the state machine allows.
    private static func moveClaimed(
        _ db: Database, _ id: Int64, owner: String, to state: ModerationAction.State, set: String, arguments: StatementArguments,
        now: Date, leaseLiveAt: Date? = nil
    ) throws {
        precondition(ModerationAction.State.sending.allowedNext.contains(state), "not a move of a claimed action")
        var all: StatementArguments = [state.rawValue]
        all += arguments
        all += [now, id, owner]
        var sql = "UPDATE action SET state = ?, \(set), updatedAt = ? WHERE id = ? AND state = 'sending' AND claimedBy = ?"
        if let leaseLiveAt {
            sql += " AND leaseExpiresAt > ?"
            all += [leaseLiveAt]
        }
        try db.execute(sql: sql, arguments: all)
        guard db.changesCount == 1 else { throw ActionStoreError.lostClaim(actionID: id) }
    }

    private static func sqlList(_ states: [ModerationAction.State]) -> String {
        states.map { "'\($0.rawValue)'" }.joined(separator: ", ")
    }
}
