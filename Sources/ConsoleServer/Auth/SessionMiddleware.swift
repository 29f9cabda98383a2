import Foundation
import Hummingbird
import ModerationStore

/// Finds the session behind the cookie and puts it on the context.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let sessions: SessionManager
    let cookie: SessionCookie
    let store: ModerationStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        var expired = false
        if let value = request.cookies[SessionCookie.name]?.value, !value.isEmpty {
            switch try await sessions.lookup(cookie: value) {
            case .active(let session, let flash):
                context.session = session
                context.flash = flash
                context.logger[metadataKey: "actor"] = "\(session.username)"
                context.pendingActions = try store.unfinishedActions(actorId: session.staffId)
                    + store.recentProblems(actorId: session.staffId, since: Date().addingTimeInterval(-15 * 60))
            case .expired:
                expired = true
            case .none:
                break
            }
        }
        guard context.session != nil || !expired else {
            var response = Response.redirect(to: "/sign-in?expired=1", type: .normal)
            response.setCookie(cookie.clear())
            return response
        }
        return try await next(request, context)
    }
}

/// Sends anyone without a session to sign-in, remembering where they were going.
struct RequireStaffMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.session != nil else {
            guard request.method == .get else { return .redirect(to: "/sign-in", type: .normal) }
            let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            let next = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"
            return .redirect(to: "/sign-in?next=\(next)", type: .normal)
        }
        return try await next(request, context)
    }
}

/// Every state-changing request carries the session's CSRF token in its form.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        var request = request
        let form = try await FormFields(request: &request, context: context)
        guard let session = context.session, let token = form["csrf"], RandomToken.equal(token, session.csrfToken) else {
            throw ConsoleError.csrfMismatch
        }
        return try await next(request, context)
    }
}
