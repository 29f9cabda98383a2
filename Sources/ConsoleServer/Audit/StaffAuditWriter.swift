import Foundation
import ModerationStore

/// Writes the audit entries that are not decisions: sign-ins and sign-outs, whose failure to
/// record is logged, never shown (the staff member's request has already happened); and
/// builds the entries the store appends with a change, in its transaction (an export's
/// entry is appended before the export starts: no entry, no export).
struct StaffAuditWriter: Sendable {
    let store: ModerationStore

    /// Records an audit entry for a sign-in event.
    func auditSession(
        _ action: String, outcome: AuditOutcome, detail: String = "", actorId: Int?, username: String, context: ConsoleRequestContext, userAgent: String
    ) async {
        await audit(
            action, targetKind: "session", targetName: "", outcome: outcome, detail: detail, actorId: actorId, username: username, context: context,
            userAgent: userAgent)
    }

    /// The entry for something the signed-in staff member does to a record of the console's own
    /// (an outbox message, a device), for the store to append in the same transaction as the change.
    func staffEntry(
        _ action: String, targetKind: String, targetId: String, targetName: String, statusBefore: String = "", statusAfter: String = "",
        reason: String = "", context: ConsoleRequestContext, userAgent: String
    ) -> AuditEntry {
        entry(
            action, targetKind: targetKind, targetId: targetId, targetName: targetName, statusBefore: statusBefore, statusAfter: statusAfter,
            reason: reason, outcome: .succeeded, detail: "", actorId: context.session?.staffId, username: context.session?.username ?? "", context: context,
            userAgent: userAgent)
    }

    /// The entry for the end of `session`'s owner's calendar feed that the console makes itself
    /// (`why`: the session ending's name, such as `notStaff`), recorded in their name.
    func calendarFeedEndedEntry(of session: StaffSession, because why: String, context: ConsoleRequestContext, userAgent: String) -> AuditEntry {
        calendarFeedEndedEntry(staffId: session.staffId, username: session.username, because: why, context: context, userAgent: userAgent)
    }

    /// The same for an account known without a session (a sign-in the backend no longer calls staff).
    func calendarFeedEndedEntry(staffId: Int, username: String, because why: String, context: ConsoleRequestContext, userAgent: String) -> AuditEntry {
        entry(
            AuditEntry.calendarFeedRevokeAction, targetKind: "oncall", targetId: String(staffId),
            targetName: "calendar feed of \(username)", statusBefore: "", statusAfter: "", outcome: .ended, detail: why,
            actorId: staffId, username: username, context: context, userAgent: userAgent)
    }

    /// The entries of a removal the console noticed on its own (the background re-check, the
    /// mirror's read): no request behind them, so `noticedBy` stands in its place.
    func removalEntries(staffId: Int, username: String, noticedBy: String, now: Date) -> (sessionsEnded: AuditEntry, feedEnded: AuditEntry) {
        func entry(_ action: String, targetKind: String, targetId: String, targetName: String) -> AuditEntry {
            AuditEntry(
                recordedAt: now, actorId: staffId, actorUsername: username, action: action, targetKind: targetKind, targetId: targetId,
                targetSlug: "", targetName: targetName, statusBefore: "", statusAfter: "", reason: "", outcome: .ended,
                outcomeDetail: SessionEnding.notStaff.rawValue, backendStatus: 403, requestId: noticedBy, clientAddress: "", userAgent: "",
                itemCreatedAt: nil, actionId: nil)
        }
        return (
            entry(AuditEntry.sessionEndAction, targetKind: "session", targetId: "", targetName: ""),
            entry(AuditEntry.calendarFeedRevokeAction, targetKind: "oncall", targetId: String(staffId), targetName: "calendar feed of \(username)")
        )
    }

    private func entry(
        _ action: String, targetKind: String, targetId: String, targetName: String, statusBefore: String, statusAfter: String,
        reason: String = "", outcome: AuditOutcome, detail: String, actorId: Int?, username: String, context: ConsoleRequestContext, userAgent: String
    ) -> AuditEntry {
        AuditEntry(
            recordedAt: Date(), actorId: actorId, actorUsername: username, action: action, targetKind: targetKind, targetId: targetId,
            targetSlug: "", targetName: targetName, statusBefore: statusBefore, statusAfter: statusAfter, reason: reason, outcome: outcome,
            outcomeDetail: detail, backendStatus: nil, requestId: context.requestID, clientAddress: context.clientAddress,
            userAgent: String(userAgent.prefix(300)), itemCreatedAt: nil, actionId: nil)
    }

    private func audit(
        _ action: String, targetKind: String, targetName: String, outcome: AuditOutcome, detail: String, actorId: Int?, username: String,
        context: ConsoleRequestContext, userAgent: String
    ) async {
        let entry = entry(
            action, targetKind: targetKind, targetId: "", targetName: targetName, statusBefore: "", statusAfter: "", outcome: outcome,
            detail: detail, actorId: actorId, username: username, context: context, userAgent: userAgent)
        do {
            try await store.appendAudit(entry)
        } catch {
            context.logger.error("audit entry not written", metadata: ["error": "\(error)", "action": "\(action)"])
        }
    }
}
