import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ModerationVocabulary
import ServiceLifecycle
import Synchronization

/// What a send came to: errors handled by kind (wait, park, give up), and the outcome recorded
/// with its audit entry and pushes.
extension ActionRunner {
    /// Which budget a call spends: reads and writes are limited (and held) separately.
    enum Phase {
        case read, write
    }

    /// Carries out the protocol's step after `error` (`DecisionProtocol.afterFailure`): a
    /// release to waiting or parked, or the final failure. A failed PATCH whose answer proves it
    /// never arrived is recorded as such, so a later re-check cannot take someone else's
    /// identical decision for ours. `inFlightUntil`: the PATCH just tried may still act at Book
    /// Corners until then (I2).
    func handle(_ error: BackendError, for action: ModerationAction, target: DecisionTarget?, phase: Phase, inFlightUntil: Date? = nil) async throws {
        let now = clock.now
        let sendNotApplied = DecisionProtocol.sendProvedNotApplied(error, duringSend: phase == .write)
        let step = rules.afterFailure(error, of: action, sendNotApplied: sendNotApplied, inFlightUntil: inFlightUntil, now: now, jitter: jitter)
        try await carryOut(step, for: action, target: target, sendNotApplied: sendNotApplied, holding: holdKey(action, phase), now: now)
        // "Staff access required" on the author's own tokens: their access ends now, and their
        // other decisions are held rather than each sent to meet the same refusal.
        if case .notStaff = error {
            try await removal?.remove(staffId: action.actorId, username: action.actorUsername, noticedBy: action.requestId, now: now)
        }
    }

    /// Does what a protocol step says: nothing here decides.
    func carryOut(
        _ step: DecisionProtocol.Step, for action: ModerationAction, target: DecisionTarget?, sendNotApplied: Bool = false, holding: String? = nil,
        notFoundAt: Date? = nil, now: Date
    ) async throws {
        let id = action.id ?? 0
        switch step {
        case .wait(let until, let message, let backendStatus, let holdsCalls):
            if holdsCalls, let holding { await holds.set(holding, until: until) }
            try await store.release(
                id, owner: owner, to: .waiting, nextAttemptAt: until, message: message, backendStatus: backendStatus, sendNotApplied: sendNotApplied,
                notFoundAt: notFoundAt, now: now)
        case .park(let message, let backendStatus):
            try await store.release(
                id, owner: owner, to: .parked, nextAttemptAt: now, message: message, backendStatus: backendStatus, sendNotApplied: sendNotApplied, now: now)
        case .fail(let message, let backendStatus):
            try await finish(
                action, state: .failed, target: target, statusAfter: target?.statusText ?? action.statusSeen.rawValue, backendStatus: backendStatus,
                message: message)
        }
    }

    /// A failure of our own (the database, a stored value): wait longer each time, and after
    /// a few in a row park it with a reason, instead of retrying it many times a second.
    func releaseAfterLocalFailure(_ error: any Error, action: ModerationAction) async {
        let id = action.id ?? 0
        let failures = action.localFailures + 1
        logger.error("action could not be processed", metadata: ["action.id": "\(id)", "failures": "\(failures)", "error": "\(error)"])
        let now = clock.now
        do {
            if failures >= Self.localFailureLimit {
                try await store.release(
                    id, owner: owner, to: .parked, nextAttemptAt: now,
                    message:
                        "Stopped after \(failures) failures inside the console itself (not at Book Corners). Whoever runs the console should check its log for action \(id); it is tried again when \(action.actorUsername) next signs in.",
                    backendStatus: nil, localFailure: true, now: now)
            } else {
                let until = now.addingTimeInterval(min(300, 5 * pow(2, Double(failures - 1))))
                try await store.release(
                    id, owner: owner, to: .waiting, nextAttemptAt: until,
                    message: "The console had a problem of its own sending this; next try \(TeamClock.stamp(until)).",
                    backendStatus: nil, localFailure: true, now: now)
            }
        } catch {
            // The claim stays until its lease runs out: then it is due again, no sooner.
            logger.error("action could not be released after a failure", metadata: ["action.id": "\(id)", "error": "\(error)"])
        }
    }

    func finishApplied(_ action: ModerationAction, target: DecisionTarget, backendStatus: Int, note: String) async throws {
        try await finish(
            action, state: .applied, target: target, statusAfter: action.statusWanted.rawValue, backendStatus: backendStatus,
            message: DecisionOutcomeText.applied(action.statusWanted, kind: action.targetKind, name: target.name, city: target.city) + "\(note).",
            outcomeDetail: note.isEmpty ? "" : "confirmed on re-check: the answer to our change was lost, and Book Corners shows it applied")
    }

    /// Stores a final outcome, and writes what it established into the mirror first, so the
    /// page a moderator sees after the outcome shows what the backend says now.
    func finish(
        _ action: ModerationAction, state: ModerationAction.Ending, target: DecisionTarget?, statusAfter: String, backendStatus: Int?,
        message: String, outcomeDetail: String = ""
    ) async throws {
        let now = clock.now
        // An applied decision changed the item from what the moderator saw: a re-read after a lost
        // answer shows our own change, never the status before it. Otherwise, what the check read.
        let statusBefore = state == .applied ? action.statusSeen.rawValue : target?.statusText ?? action.statusSeen.rawValue
        let audit = AuditEntry(
            recordedAt: now, actorId: action.actorId, actorUsername: action.actorUsername,
            action: DecisionVerb.auditAction(kind: action.targetKind, statusAfter: action.statusWanted),
            targetKind: action.targetKind.rawValue, targetId: target.map { String($0.itemID) } ?? action.targetKey,
            targetSlug: target?.slug ?? (action.targetKind == .library ? action.targetKey : ""), targetName: target?.name ?? "",
            statusBefore: statusBefore, statusAfter: statusAfter, reason: action.reason,
            outcome: state.auditOutcome, outcomeDetail: outcomeDetail, backendStatus: backendStatus, requestId: action.requestId,
            clientAddress: action.clientAddress,
            userAgent: action.userAgent, itemCreatedAt: target?.createdAt, actionId: action.id)
        var messages: [OutboxMessage] = []
        if state == .applied, let target, let recipient = target.submitterID,
            let push = DecisionNotifications.notification(for: target, statusAfter: action.statusWanted, reason: action.reason)
        {
            let messageID = messageIDs()
            let headers = push.headers(
                messageID: messageID, bundleID: bundleID, collapseID: "\(target.kind.rawValue)-\(target.itemID)", now: now)
            let headerJSON = String(decoding: (try? JSONSerialization.data(withJSONObject: headers, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
            messages.append(
                OutboxMessage(
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
        if action.targetKind == .library, state == .applied || state == .conflict {
            // The library's reasons are recorded as they stood, with its outcome, for the reasons'
            // figures and its page: not a refresher pass (up to a minute) later. Real time, as the
            // change log the same prune trims is stamped in real time.
            do {
                try await store.pruneLibraryConcerns()
            } catch {
                logger.warning("reasons not recorded after a decision", metadata: ["action.id": "\(action.id ?? 0)", "error": "\(error)"])
            }
        }
        try await store.finish(
            action.id ?? 0, owner: owner, state: state.state, message: Self.acknowledgingLostAnswers(message, of: action, ending: state),
            backendStatus: backendStatus, audit: audit,
            notifications: messages, withdrawing: Self.withdrawal(undoneBy: action, target: target, audit: audit), now: now)
        logger.info(
            "decision finished", metadata: ["action.id": "\(action.id ?? 0)", "outcome": "\(state.auditOutcome.rawValue)", "actor": "\(action.actorUsername)"])
    }

    /// A decision that ends without applying after an attempt whose answer was lost says that
    /// the attempt may have applied (and been changed since): Book Corners keeps no record the
    /// console could ask. "Not sent" would be untrue of it.
    static func acknowledgingLostAnswers(_ message: String, of action: ModerationAction, ending: ModerationAction.Ending) -> String {
        guard action.unknownOutcomes > 0 else { return message }
        switch ending {
        case .conflict:
            let opened = message.hasPrefix("Not sent:") ? "Not sent again:" + message.dropFirst("Not sent:".count) : message
            return opened + " An earlier attempt was sent and its answer lost, so it may have applied before the change shown here."
        case .failed:
            // A refusal of the re-send proves nothing of the lost one: the check before the
            // re-send read the item's state, which someone may have changed back since it applied
            // (simulation seed 1795949135189).
            let opened = message.hasPrefix("Not applied:") ? "Not applied this time:" + message.dropFirst("Not applied:".count) : message
            return opened + " An earlier attempt was sent and its answer lost, so it may have applied (and been changed since)."
        case .applied:
            return message
        }
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
    func holdKey(_ action: ModerationAction, _ phase: Phase) -> String {
        "\(forwardClientAddress ? action.clientAddress : "console")|\(phase)|\(action.targetKind.rawValue)"
    }

    /// Why a decision was not sent, naming who made the item what it is now when the console's
    /// audit log knows: the moderator themselves (the same decision from a second tab or an old
    /// page), a colleague through the console, or else someone outside it.
    /// `decidedSince`: a colleague's (or the moderator's own later) decision applied after this
    /// one was made, which it must not override even when the item is back as it was.
    /// `laterSent`: a decision made after this one that has gone out.
    func conflictMessage(
        _ action: ModerationAction, target: DecisionTarget, decidedSince: AuditEntry? = nil, laterSent: ModerationAction? = nil
    ) async throws -> String {
        if let later = laterSent, decidedSince == nil || later.state != .applied {
            let who = later.actorId == action.actorId ? "You made a later decision" : "\(later.actorUsername) made a later decision"
            return
                "Not sent: \(who) on this (\(later.statusSeen.rawValue) → \(later.statusWanted.rawValue), at \(TeamClock.stamp(later.createdAt))) that has gone out to Book Corners, which shows it \(target.statusText) now. Look again and decide."
        }
        if let since = decidedSince, since.statusAfter != target.statusText {
            let who = since.actorId == action.actorId ? "you decided it again" : "\(since.actorUsername) decided it"
            return
                "Not sent: \(who) after this decision was made (\(since.statusBefore) → \(since.statusAfter) at \(TeamClock.stamp(since.recordedAt))), and Book Corners shows it \(target.statusText) now. Look again and decide."
        }
        let latest = try await store.latestDecisions(kind: action.targetKind, targetIds: [String(target.itemID)])[String(target.itemID)]
        if let latest, latest.outcome == .applied, latest.statusAfter == target.statusText, latest.actionId != action.id {
            if latest.actorId == action.actorId, action.statusWanted.rawValue == target.statusText {
                return
                    "Not sent: you had already made this \(target.statusText), at \(TeamClock.stamp(latest.recordedAt)) (an earlier decision of yours). Nothing more to do."
            }
            return
                "Not sent: \(latest.actorId == action.actorId ? "your other decision" : "\(latest.actorUsername)'s decision") reached Book Corners first and changed this to \(target.statusText) at \(TeamClock.stamp(latest.recordedAt)), before your decision went out (you saw it \(action.statusSeen.rawValue)). Look again and decide."
        }
        return
            "Not sent: someone else changed this to \(target.statusText) before your decision went out (you saw it \(action.statusSeen.rawValue)). Look again and decide."
    }
}
