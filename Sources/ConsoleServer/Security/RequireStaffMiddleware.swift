import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// Sends anyone without a session to sign-in, remembering where they were going, or the
/// decision form they sent (`UnsentWork`). A session cookie that names no session any more
/// (it ended and was pruned) is said to have ended.
struct RequireStaffMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let unsent: UnsentWork
    let cookie: SessionCookie

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.session != nil else {
            var request = request
            let hadSession = !(cookie.value(in: request) ?? "").isEmpty
            let path = await unsent.signInPath(for: &request, context: context, ending: hadSession ? .expired : nil)
            var response = Response.redirect(to: path, type: .normal)
            // The live stream leaves the cookie to the moderator's own next request (see SessionMiddleware).
            if hadSession, request.uri.path != SiteURL.events.path { response.setCookie(cookie.clear()) }
            return SignInAnswer.adapted(response, for: request)
        }
        return try await next(request, context)
    }
}
