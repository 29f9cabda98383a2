import Foundation
import Hummingbird
import ModerationStore

/// Notes where the database stands before the session is looked up, since the session, its
/// flash and the header's panels are read there and are part of every page.
struct ChangeStampMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let store: ModerationStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else { return try await next(request, context) }
        var context = context
        context.stampBeforeSession = store.changeStamp()
        return try await next(request, context)
    }
}

/// Answers a signed-in GET from `RecentPages` when nothing changed since its copy was made,
/// and keeps a copy of every page rendered while nothing changed.
struct RecentPageMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let pages: RecentPages
    let store: ModerationStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A page showing a flash is shown once: its flash is consumed in the background, after the page.
        guard request.method == .get || request.method == .head, let session = context.session, let stamp = context.stampBeforeSession,
            context.flash == nil
        else {
            return try await next(request, context)
        }
        let key = RecentPages.Key(session: session.id, target: request.uri.description)
        let now = ContinuousClock.now
        if let body = pages.page(key, stamp: stamp, now: now), store.changeStamp() == stamp {
            return HTML.response(body: body, status: .ok)
        }
        var context = context
        let capture = PageCapture()
        context.pageCapture = capture
        let response = try await next(request, context)
        // Kept only when everything the page shows was read at `stamp`: a commit while it was
        // read or rendered leaves it uncopied.
        if response.status == .ok, let body = capture.captured, store.changeStamp() == stamp {
            pages.keep(body, for: key, stamp: stamp, at: now)
        }
        return response
    }
}
