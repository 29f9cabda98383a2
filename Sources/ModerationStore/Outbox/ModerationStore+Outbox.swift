import Foundation
import GRDB

extension ModerationStore {
    /// Outbox messages, newest first, optionally of one status or event type.
    public func outboxMessages(status: OutboxMessage.State? = nil, eventType: OutboxMessage.EventType? = nil, limit: Int = 100) async throws -> [OutboxMessage]
    {
        try await writer.read { db in
            var request = OutboxMessage.all()
            if let status { request = request.filter(OutboxMessage.Columns.status == status.rawValue) }
            if let eventType { request = request.filter(OutboxMessage.Columns.eventType == eventType.rawValue) }
            return try request.order(OutboxMessage.Columns.createdAt.desc).limit(limit).fetchAll(db)
        }
    }

    public func outboxMessage(id: String) async throws -> OutboxMessage? {
        try await writer.read { db in try OutboxMessage.fetchOne(db, key: id) }
    }

    /// Every attempt at one message, oldest first.
    public func outboxAttempts(messageID: String) async throws -> [OutboxAttempt] {
        try await writer.read { db in
            try OutboxAttempt.filter(Column("messageId") == messageID).order(Column("id")).fetchAll(db)
        }
    }

    /// The number of attempts per message, for a list of messages.
    public func outboxAttemptCounts(messageIDs: [String]) async throws -> [String: Int] {
        guard !messageIDs.isEmpty else { return [:] }
        return try await writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT messageId, COUNT(*) FROM outboxAttempt WHERE messageId IN (\(databaseQuestionMarks(count: messageIDs.count))) GROUP BY messageId",
                arguments: StatementArguments(messageIDs))
            return Dictionary(uniqueKeysWithValues: rows.map { (row: Row) in (row[0] as String, row[1] as Int) })
        }
    }

    /// Counts per state, and the attempts since `since`.
    public func outboxHealth(since: Date) async throws -> OutboxHealth {
        try await writer.read { db in
            var counts: [OutboxMessage.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) FROM outboxMessage GROUP BY status") {
                if let state = OutboxMessage.State(rawValue: row[0]) { counts[state] = row[1] }
            }
            let recent = try Row.fetchOne(
                db,
                sql: """
                    SELECT COALESCE(SUM(outcome IN ('retry', 'failed')), 0), COALESCE(SUM(outcome = 'delivered'), 0)
                    FROM outboxAttempt WHERE attemptedAt >= ?
                    """, arguments: [since])
            let last = try Row.fetchOne(
                db, sql: "SELECT reason, attemptedAt FROM outboxAttempt WHERE attemptedAt >= ? AND outcome IN ('retry', 'failed') ORDER BY id DESC LIMIT 1",
                arguments: [since])
            return OutboxHealth(
                counts: counts, recentFailures: recent?[0] ?? 0, recentDeliveries: recent?[1] ?? 0,
                lastFailureReason: last?[0] ?? "", lastFailureAt: last?[1])
        }
    }

    /// The soonest time a pending message is due or a sending one's lease runs out.
    public func nextOutboxDueDate() async throws -> Date? {
        try await writer.read { db in
            try Date.fetchOne(
                db,
                sql: """
                    SELECT MIN(due) FROM (
                        SELECT MIN(nextAttemptAt) AS due FROM outboxMessage WHERE status = 'pending'
                        UNION ALL
                        SELECT MIN(leaseExpiresAt) FROM outboxMessage WHERE status = 'sending')
                    """)
        }
    }

    // MARK: Moves of the state machine (each names the states it expects)

    /// Claims up to `limit` due messages for `owner`, oldest first: pending and due, or sending
    /// with an expired lease (its dispatcher died; the message keeps its `apns-id`). Each claim
    /// is its own guarded UPDATE, so of two dispatchers on one file only one gets a message.
    public func claimDueOutboxMessages(owner: String, limit: Int, leaseUntil: Date, now: Date) async throws -> [OutboxMessage] {
        try await writer.write { db in
            // A dead dispatcher's messages first (they waited longest), then pending ones in
            // the order they were created, read along an index without sorting the whole outbox.
            var ids = try String.fetchAll(
                db, sql: "SELECT id FROM outboxMessage WHERE status = 'sending' AND leaseExpiresAt <= ? ORDER BY createdAt, id LIMIT ?",
                arguments: [now, limit])
            ids += try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM outboxMessage INDEXED BY outboxMessage_pendingOrder
                    WHERE status = 'pending' AND nextAttemptAt <= ? ORDER BY createdAt, id LIMIT ?
                    """, arguments: [now, limit - ids.count])
            guard !ids.isEmpty else { return [] }
            // One guarded UPDATE for the batch: a message another dispatcher took meanwhile no
            // longer matches, and is not ours. Ours are those now held by us with this lease.
            let list = databaseQuestionMarks(count: ids.count)
            var arguments: StatementArguments = [owner, leaseUntil]
            arguments += StatementArguments(ids)
            arguments += [now, now]
            try db.execute(
                sql: """
                    UPDATE outboxMessage SET status = 'sending', claimedBy = ?, leaseExpiresAt = ?, attempts = attempts + 1
                    WHERE id IN (\(list)) AND ((status = 'pending' AND nextAttemptAt <= ?) OR (status = 'sending' AND leaseExpiresAt <= ?))
                    """, arguments: arguments)
            var held: StatementArguments = [owner, leaseUntil]
            held += StatementArguments(ids)
            return try OutboxMessage.fetchAll(
                db,
                sql: "SELECT * FROM outboxMessage WHERE status = 'sending' AND claimedBy = ? AND leaseExpiresAt = ? AND id IN (\(list)) ORDER BY createdAt, id",
                arguments: held)
        }
    }

    /// Extends the lease `owner` holds on each of `ids` it still holds; answers how many it holds.
    @discardableResult
    public func renewOutboxLeases(_ ids: [String], owner: String, until: Date) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await writer.write { db in
            var arguments: StatementArguments = [until, owner]
            arguments += StatementArguments(ids)
            try db.execute(
                sql: """
                    UPDATE outboxMessage SET leaseExpiresAt = ?
                    WHERE status = 'sending' AND claimedBy = ? AND id IN (\(databaseQuestionMarks(count: ids.count)))
                    """, arguments: arguments)
            return db.changesCount
        }
    }

    /// Ends or gives back one claimed message; see `settleOutboxMessages`.
    public func settleOutboxMessage(
        _ id: String, owner: String, to state: OutboxMessage.State, reason: String, attempts: [OutboxAttempt], nextAttemptAt: Date? = nil,
        now: Date
    ) async throws {
        let lost = try await settleOutboxMessages(
            [OutboxSettlement(messageID: id, state: state, reason: reason, attempts: attempts, nextAttemptAt: nextAttemptAt)], owner: owner, now: now)
        if !lost.isEmpty { throw OutboxStoreError.lostClaim(messageID: id) }
    }

    /// Ends or gives back claimed messages with the attempts just made, all in one transaction
    /// (a batch of deliveries costs one commit). Each must still be `sending` and held by
    /// `owner`; answers the ids it no longer held (another dispatcher took them over after the
    /// lease ran out: their state stands, our attempts are still recorded). What the attempts
    /// told about devices moves their state (`DeviceReport`): a last success, a token unregistered
    /// or of the wrong environment, or one back in the other environment.
    @discardableResult
    public func settleOutboxMessages(_ settlements: [OutboxSettlement], owner: String, now: Date) async throws -> [String] {
        try await writer.write { db in
            var lost: [String] = []
            for settlement in settlements {
                let state = settlement.state
                precondition(OutboxMessage.State.sending.allowedNext.contains(state) && state != .sending, "not a move of a claimed message")
                // Cached statements: a batch runs the same few statements a hundred times.
                try db.cachedStatement(
                    sql: """
                        UPDATE outboxMessage SET status = ?, lastReason = ?, nextAttemptAt = COALESCE(?, nextAttemptAt),
                            claimedBy = NULL, leaseExpiresAt = NULL, finishedAt = ?
                        WHERE id = ? AND status = 'sending' AND claimedBy = ?
                        """
                ).execute(arguments: [state.rawValue, settlement.reason, settlement.nextAttemptAt, state.isFinal ? now : nil, settlement.messageID, owner])
                // A claim lost meanwhile (our lease ran out and another took the message): its
                // new state stands, but what our attempts learned is still kept (and a token
                // APNs called gone is still disabled).
                if db.changesCount != 1 { lost.append(settlement.messageID) }
                for attempt in settlement.attempts {
                    try db.cachedStatement(
                        sql: """
                            INSERT INTO outboxAttempt (messageId, deviceToken, transport, httpStatus, outcome, reason, attemptedAt)
                            VALUES (?, ?, ?, ?, ?, ?, ?)
                            """
                    ).execute(arguments: [
                        attempt.messageId, attempt.deviceToken, attempt.transport, attempt.httpStatus, attempt.outcome.rawValue, attempt.reason,
                        attempt.attemptedAt,
                    ])
                }
                let reports = settlement.deviceReports.isEmpty ? settlement.attempts.compactMap(DeviceReport.init(attempt:)) : settlement.deviceReports
                for report in reports { try Self.apply(report, db) }
            }
            return lost
        }
    }

    /// The device tokens earlier attempts at each message reached, so a retry skips them.
    public func deliveredDeviceTokens(messageIDs: [String]) async throws -> [String: Set<String>] {
        guard !messageIDs.isEmpty else { return [:] }
        return try await writer.read { db in
            var tokens: [String: Set<String>] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT messageId, deviceToken FROM outboxAttempt
                    WHERE outcome = 'delivered' AND messageId IN (\(databaseQuestionMarks(count: messageIDs.count)))
                    """, arguments: StatementArguments(messageIDs))
            for row in rows { tokens[row[0], default: []].insert(row[1]) }
            return tokens
        }
    }

    /// Gives back messages `owner` holds without counting an attempt (a graceful shutdown).
    public func releaseOutboxMessages(owner: String) async throws -> Int {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE outboxMessage SET status = 'pending', claimedBy = NULL, leaseExpiresAt = NULL, attempts = MAX(0, attempts - 1)
                    WHERE status = 'sending' AND claimedBy = ?
                    """, arguments: [owner])
            return db.changesCount
        }
    }

    /// A failed or no-device message becomes due now (Retry now), with a fresh count of attempts
    /// and its audit entry.
    public func retryOutboxMessage(_ id: String, audit: AuditEntry, now: Date) async throws {
        // A fresh run of attempts: the ones before stay in the attempt history.
        try await moveByStaff(id, to: .pending, set: "nextAttemptAt = ?, finishedAt = NULL, attempts = 0, lastReason = ''", arguments: [now], audit: audit)
    }

    /// Within a restore, on the checked copy before it is put in place: every message still to be
    /// (re)sent there was waiting when the backup was taken and may have gone out after it, so it
    /// is held for a staff member to send or discard, never re-sent on its own. What the database
    /// being replaced (if it can be read) knows of each goes into its reason. Answers how many.
    @discardableResult
    static func holdRestoredOutboxMessages(in copy: DatabaseQueue, replacing databasePath: String, now: Date) throws -> Int {
        let sources = OutboxMessage.State.heldByRestore.map { "'\($0.rawValue)'" }.joined(separator: ", ")
        let ids = try copy.read { db in try String.fetchAll(db, sql: "SELECT id FROM outboxMessage WHERE status IN (\(sources))") }
        guard !ids.isEmpty else { return 0 }
        let replaced = copy.writeWithoutTransaction { db in replacedOutboxStates(ids: ids, databasePath: databasePath, db) }
        let restoredAt = now.formatted(.iso8601)
        return try copy.write { db in
            var held = 0
            for id in ids {
                var reason =
                    "Held by the restore of \(restoredAt): it was waiting to be sent when the backup was taken, so it may have gone out after the backup. Send it only if its recipient has not had it; otherwise discard it."
                if let known = replaced[id] { reason += " " + known }
                try db.execute(
                    sql: """
                        UPDATE outboxMessage SET status = 'held', lastReason = ?, claimedBy = NULL, leaseExpiresAt = NULL, finishedAt = NULL
                        WHERE id = ? AND status IN (\(sources))
                        """, arguments: [reason, id])
                held += db.changesCount
            }
            return held
        }
    }

    /// What the database a restore replaces says of each message, in words, read through the
    /// copy's own connection (attached, then detached: no second connection to race the restore's
    /// own); empty when it is missing or cannot be read (the words only help a person decide).
    private static func replacedOutboxStates(ids: [String], databasePath: String, _ db: Database) -> [String: String] {
        guard FileManager.default.fileExists(atPath: databasePath) else { return [:] }
        do {
            // A process that just let go of it may still be checkpointing its log: wait a little.
            try db.execute(sql: "PRAGMA busy_timeout = 5000")
            try db.execute(sql: "ATTACH DATABASE ? AS replaced", arguments: [databasePath])
        } catch {
            return [:]
        }
        defer { try? db.execute(sql: "DETACH DATABASE replaced") }
        do {
            let messages = try OutboxMessage.fetchAll(
                db, sql: "SELECT * FROM replaced.outboxMessage WHERE id IN (\(databaseQuestionMarks(count: ids.count)))",
                arguments: StatementArguments(ids))
            var words: [String: String] = [:]
            for message in messages {
                let when = (message.finishedAt ?? message.nextAttemptAt).formatted(.iso8601)
                words[message.id] =
                    switch message.status {
                    case .delivered: "The database the restore replaced says it was delivered at \(when)."
                    case .recordedOnly: "The database the restore replaced says Book Corners sent it itself (recorded only) at \(when)."
                    case .pending, .held: "The database the restore replaced says it was still waiting to be sent."
                    case .sending: "The database the restore replaced says it was being sent when that database was last used."
                    case .failed, .noDevice, .discarded: "The database the restore replaced says it ended \(message.status.label.lowercased()) at \(when)."
                    }
            }
            return words
        } catch {
            return [:]
        }
    }

    /// A failed message is kept but never delivered (Discard), with its audit entry.
    public func discardOutboxMessage(_ id: String, audit: AuditEntry, now: Date) async throws {
        try await moveByStaff(id, to: .discarded, set: "finishedAt = ?", arguments: [now], audit: audit)
    }

    private func moveByStaff(_ id: String, to state: OutboxMessage.State, set: String, arguments: StatementArguments, audit: AuditEntry) async throws {
        let sources = OutboxMessage.State.staffSources(of: state)
        try await writer.write { db in
            var all: StatementArguments = [state.rawValue]
            all += arguments
            all += [id]
            try db.execute(
                sql: "UPDATE outboxMessage SET status = ?, \(set) WHERE id = ? AND status IN (\(sources.map { "'\($0.rawValue)'" }.joined(separator: ", ")))",
                arguments: all)
            guard db.changesCount == 1 else {
                let found = try String.fetchOne(db, sql: "SELECT status FROM outboxMessage WHERE id = ?", arguments: [id])
                throw OutboxStoreError.notMovable(messageID: id, from: found.flatMap(OutboxMessage.State.init(rawValue:)))
            }
            var entry = audit
            try self.append(&entry, db)
        }
    }

    /// Within the transaction that records an undo: discards the messages of `withdrawal.eventType`
    /// that the item's latest applied decision before `undoingActionID` caused, when that decision
    /// set `withdrawal.undoneStatus` and they have not gone out (pending, failed, no device), each
    /// with its audit entry. Answers what to add to the undo's outcome: `alreadyToldNote` when a
    /// message had gone out (or was being sent), `withdrawnNote` when every one was stopped, "" else.
    func withdrawNotifications(_ db: Database, _ withdrawal: NotificationWithdrawal, undoingActionID: Int64, now: Date) throws -> String {
        guard
            let undone = try ModerationAction.fetchOne(
                db, sql: "SELECT * FROM action WHERE targetKind = ? AND targetKey = ? AND state = 'applied' AND id < ? ORDER BY id DESC LIMIT 1",
                arguments: [withdrawal.targetKind.rawValue, withdrawal.targetKey, undoingActionID]),
            undone.statusWanted == withdrawal.undoneStatus, let undoneID = undone.id
        else { return "" }
        let messages =
            try OutboxMessage
            .filter(Column("actionId") == undoneID && OutboxMessage.Columns.eventType == withdrawal.eventType.rawValue)
            .order(OutboxMessage.Columns.createdAt).fetchAll(db)
        let sources = OutboxMessage.State.sources(of: .discarded)
        var told = false
        var withdrawn = false
        for message in messages {
            if message.status.hasGoneOut { told = true }
            guard sources.contains(message.status) else { continue }
            try db.execute(
                sql: """
                    UPDATE outboxMessage SET status = 'discarded', lastReason = ?, finishedAt = ?, nextAttemptAt = ?
                    WHERE id = ? AND status IN (\(sources.map { "'\($0.rawValue)'" }.joined(separator: ", ")))
                    """,
                arguments: [withdrawal.reason, now, now, message.id])
            guard db.changesCount == 1 else { throw OutboxStoreError.notMovable(messageID: message.id, from: message.status) }
            var entry = withdrawal.audit
            entry.targetKind = "outbox"
            entry.targetId = message.id
            entry.targetSlug = ""
            entry.targetName = "\(message.eventType.rawValue) to user #\(message.recipientUserId)"
            entry.statusBefore = message.status.rawValue
            entry.statusAfter = OutboxMessage.State.discarded.rawValue
            try append(&entry, db)
            withdrawn = true
        }
        if told { return " " + withdrawal.alreadyToldNote }
        return withdrawn ? " " + withdrawal.withdrawnNote : ""
    }
}
