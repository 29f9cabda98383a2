import Foundation
import Logging
import ModerationStore

/// What happens the moment Book Corners says someone is no longer staff, whoever noticed (a
/// page view, the background re-check, the mirror reading with their tokens): every session
/// ends (an open live stream closes at its next heartbeat), their calendar feed stops, their
/// remembered browsers are forgotten, and their decisions not yet sent are held, with words
/// colleagues read on each one's page.
struct StaffRemoval: Sendable {
    let store: ModerationStore
    let sessions: StaffSessions
    let audit: StaffAuditWriter
    let logger: Logger

    /// Ends every access of `staffId`; `noticedBy` names what found out (kept as the audit
    /// entries' request id). Audited once: a second notice finds nothing left to end.
    func remove(staffId: Int, username: String, noticedBy: String, now: Date = Date()) async throws {
        let entries = audit.removalEntries(staffId: staffId, username: username, noticedBy: noticedBy, now: now)
        let message = Self.heldMessage(username: username, at: now)
        // Held before the sessions end as well as after: a runner that finds no session in
        // between would park one with "waiting for them to sign in" words instead.
        var held = try await store.parkDecisions(actorId: staffId, message: message, now: now)
        let ended = try await sessions.endAll(staffId: staffId, revokingCalendarFeed: entries.feedEnded, because: .notStaff)
        try await store.forgetRememberedBrowsers(accountID: staffId, username: username, now: now)
        held += try await store.parkDecisions(actorId: staffId, message: message, now: now)
        guard ended + held > 0 else { return }
        // A page view that found out audited the sessions' end itself, with its request.
        if ended > 0 { try await store.appendAudit(entries.sessionsEnded) }
        logger.notice(
            "no longer staff: access ended", metadata: ["actor": "\(username)", "sessions": "\(ended)", "decisions.held": "\(held)", "by": "\(noticedBy)"])
    }

    /// Ends every access of whoever holds `sessionID` (the mirror read with its tokens).
    func removeOwner(ofSession sessionID: String, noticedBy: String, now: Date = Date()) async throws {
        guard let session = try await store.session(id: sessionID) else { return }
        try await remove(staffId: session.staffId, username: session.username, noticedBy: noticedBy, now: now)
    }

    /// What a held decision's page says.
    static func heldMessage(username: String, at now: Date) -> String {
        "Held, not sent: Book Corners says \(username) is no longer staff (noticed \(TeamClock.stamp(now))). A colleague can decide this item again; this decision is sent only if \(username) is staff again and signs in."
    }
}
