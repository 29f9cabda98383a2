import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// Who may see this page, in one place: finds the session behind the cookie, ends it when its
/// time is up (or says why the console ended it), checks that its backend credentials still
/// open and that its owner is still staff (`StaffStatusCheck`, with its grace while Book Corners
/// cannot be asked), and puts it on the context. A session that fails is ended here and the
/// person sent to sign in, for every page, including those that never call the backend. What
/// a signed-in page shows around its content is `PageHeaderMiddleware`'s.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let sessions: StaffSessions
    let statusCheck: StaffStatusCheck
    let removal: StaffRemoval
    let audit: StaffAuditWriter
    let cookie: SessionCookie
    let store: ModerationStore
    let forwardClientAddress: Bool
    /// Gives each decision waiting its turn in the Pending actions panel its expected send time.
    let schedule: SendSchedule
    /// Keeps the address or the decision form of a request whose session has just expired.
    var unsent: UnsentWork { UnsentWork(store: store) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        guard let value = cookie.value(in: request), !value.isEmpty else { return try await next(request, context) }
        // The live stream reconnects in the background: were it to end an expired session and
        // clear its cookie, the decision the moderator sends next would find no session to keep
        // it for. It is only told to stop (401); the moderator's own next request ends the session.
        let isStream = request.uri.path == SiteURL.events.path
        switch try await sessions.lookup(cookie: value, endingExpired: !isStream) {
        case .none:
            return try await next(request, context)
        case .expired where isStream, .ended where isStream:
            return try await next(request, context)
        case .ended where request.uri.path == SiteURL.signIn.path:
            // Already where it leads (a cookie the browser kept): the page says why.
            return try await next(request, context)
        case .expired(let staffId):
            var request = request
            let path = await unsent.signInPath(for: &request, context: context, ending: .expired, owner: staffId)
            return SignInAnswer.adapted(SessionEnding.expired.response(cookie: cookie, to: path), for: request)
        case .ended(let staffId, let ending):
            // Ended by the console (no longer staff): the sign-in page says why, not "expired".
            var request = request
            let path = await unsent.signInPath(for: &request, context: context, ending: ending, owner: staffId)
            return SignInAnswer.adapted(ending.response(cookie: cookie, to: path), for: request)
        case .active(let session, let flash, let endsAt):
            if let ending = try await ending(of: session, request: request, context: context) {
                let answer = try await ending.end(session, sessions: sessions, audit: audit, cookie: cookie, request: request, context: context)
                // The rest of what ends with being staff: remembered browsers, decisions not yet sent.
                if ending == .notStaff { try await removal.remove(staffId: session.staffId, username: session.username, noticedBy: context.requestID) }
                return SignInAnswer.adapted(answer, for: request)
            }
            context.session = session
            context.sendSchedule = schedule
            context.flash = flash
            context.sessionEndsAt = endsAt
            context.logger[metadataKey: "actor"] = "\(session.username)"
            context.staff.set(id: session.staffId, username: session.username)
            return try await next(request, context)
        }
    }

    /// Why this live session must end now, or `nil` when it may go on.
    private func ending(of session: StaffSession, request: Request, context: Context) async throws -> SessionEnding? {
        let credentials: StaffCredentials
        do {
            credentials = try await sessions.credentials(for: session)
        } catch SessionCredentialsError.unreadable {
            return .unreadable
        }
        let callContext = context.callContext(forwardClientAddress: forwardClientAddress)
        switch await statusCheck.verdict(staffId: session.staffId, credentials: credentials, context: callContext, signedInAt: session.createdAt) {
        case .staff: return nil
        case .notStaff: return .notStaff
        case .refused: return .refused
        case .unconfirmed where [SiteURL.signOut.path, SiteURL.signIn.path].contains(request.uri.path):
            // Signing out (on a shared computer, say) needs no word from Book Corners.
            return nil
        case .unconfirmed(let since, let grace):
            // Past the grace with Book Corners silent: no page, but the session is kept.
            throw ConsoleError.staffUnconfirmed(since: since, grace: grace)
        }
    }
}
