import Hummingbird
import ModerationStore

/// Why the console ended a session by itself; the sign-in page tells the person which.
enum SessionEnding: String, CaseIterable, Sendable {
    /// Idle too long, or past its absolute end.
    case expired
    /// The backend refused the session's tokens, even after a refresh (revoked, password changed).
    case refused
    /// The stored tokens cannot be decrypted (the token key was replaced).
    case unreadable
    /// The backend no longer calls the account staff.
    case notStaff

    /// Where the person is sent; `expired=1` is the address bookmarks and tests already know.
    var signInPath: String {
        self == .expired ? SiteURL.signIn.path(query: [("expired", "1")]) : SiteURL.signIn.path(query: [("ended", rawValue)])
    }

    /// The ending a sign-in page address names, if any.
    init?(query: [String: String]) {
        if query["expired"] != nil {
            self = .expired
        } else if let name = query["ended"], let ending = SessionEnding(rawValue: name) {
            self = ending
        } else {
            return nil
        }
    }

    var message: String {
        switch self {
        case .expired:
            "Your session has ended. Sign in again to continue."
        case .refused:
            "Book Corners no longer accepts your sign-in (it may have been revoked, or your password changed). Sign in again to continue."
        case .unreadable:
            "The console could not read your saved sign-in (its encryption key has changed). Sign in again to continue."
        case .notStaff:
            "Your account is no longer a Book Corners staff account, so your console session has ended. If that is a mistake, ask a Book Corners administrator."
        }
    }

    /// Ends what this reason calls for (every session of someone no longer staff, else this
    /// one), records it in the audit log, and answers the redirect to sign-in.
    func end(
        _ session: StaffSession, sessions: StaffSessions, audit: StaffAuditWriter, cookie: SessionCookie, request: Request,
        context: ConsoleRequestContext
    ) async throws -> Response {
        context.logger.notice("session ended", metadata: ["actor": "\(session.username)", "why": "\(rawValue)"])
        if self == .notStaff {
            // Their calendar feed shows shifts, colleagues and the console's address: it ends with their sessions.
            let feed = audit.calendarFeedEndedEntry(of: session, because: rawValue, context: context, userAgent: request.userAgent)
            try await sessions.endAll(staffId: session.staffId, revokingCalendarFeed: feed, because: .notStaff)
        } else {
            try await sessions.end(sessionID: session.id)
        }
        await audit.auditSession(
            AuditEntry.sessionEndAction, outcome: .ended, detail: rawValue, actorId: session.staffId, username: session.username, context: context,
            userAgent: request.userAgent)
        return response(cookie: cookie)
    }

    /// The redirect to sign-in (`path`, by default the plain one for this ending) that also clears the cookie.
    func response(cookie: SessionCookie, to path: String? = nil) -> Response {
        var response = Response.redirect(to: path ?? signInPath, type: .normal)
        response.setCookie(cookie.clear())
        return response
    }
}
