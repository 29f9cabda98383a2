import BookCornersAPI
import Hummingbird
import Logging
import Mustache

/// Turns every error into a page that says what happened and what to do: never a stack
/// trace, never a blank 500. Unknown errors are logged here with the request id, which the
/// page shows too. It sits inside `SessionMiddleware` (so pages keep their sign-out button,
/// and a session whose tokens the backend refuses is ended here) and once more outside it,
/// for failures of the session lookup itself.
struct ErrorPageMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let renderer: PageRenderer
    let sessions: StaffSessions
    let audit: StaffAuditWriter
    let cookie: SessionCookie

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as ConsoleError {
            return try await page(for: error, request: request, context: context)
        } catch let error as FormError {
            return try await page(for: .badInput(error.message), request: request, context: context)
        } catch let error as BackendError {
            return try await page(for: .backend(error), request: request, context: context)
        } catch SessionCredentialsError.unreadable {
            guard let session = context.session else { return SessionEnding.unreadable.response(cookie: cookie) }
            return try await SessionEnding.unreadable.end(session, sessions: sessions, audit: audit, cookie: cookie, request: request, context: context)
        } catch let error as HTTPError where error.status == .notFound {
            return try await page(for: .notFound, request: request, context: context)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return try await page(for: .formTooLarge, request: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["request.id": "\(context.requestID)", "error": "\(error)"])
            let model = ErrorPage(
                layout: LayoutModel(context: context, title: "Something went wrong", active: nil, summary: nil),
                title: "Something went wrong",
                message:
                    "The console hit an unexpected problem. Nothing you did caused it. Try again; if it keeps happening, tell the console's maintainers and quote the request id.",
                requestID: context.requestID)
            return try renderer.render(model, with: "error", status: .internalServerError).response(from: request, context: context)
        }
    }

    private func page(for error: ConsoleError, request: Request, context: Context) async throws -> Response {
        if case .backend(.sessionExpired) = error, let session = context.session {
            // The backend no longer accepts this staff member's tokens: end our session too,
            // or every page would fail and sign-in would send them straight back here.
            return try await SessionEnding.refused.end(session, sessions: sessions, audit: audit, cookie: cookie, request: request, context: context)
        }
        if case .backend(.notStaff) = error, let session = context.session {
            // Any call may learn it before the periodic re-check does: end every session of theirs now.
            return try await SessionEnding.notStaff.end(session, sessions: sessions, audit: audit, cookie: cookie, request: request, context: context)
        }
        if case .backend(let backendError) = error {
            context.logger.warning("backend error", metadata: ["request.id": "\(context.requestID)", "error": "\(backendError)"])
        }
        var model = ErrorPage(
            layout: LayoutModel(context: context, title: error.title, active: nil, summary: nil),
            title: error.title, message: error.message, requestID: context.requestID)
        model.formRefused = request.method == .post && error.refusesTheWholeForm
        return try renderer.render(model, with: "error", status: error.status).response(from: request, context: context)
    }
}

/// The error page.
struct ErrorPage: MustacheParent {
    let layout: LayoutModel
    let title: String
    let message: String
    let requestID: String
    /// A form was refused before anything of it was done: the page's script offers back what
    /// was typed in it, on the page it was typed on.
    var formRefused = false

    func child(named key: String) -> Any? {
        switch key {
        case "formRefused": formRefused
        case "layout": layout
        case "title": title
        case "message": message
        case "requestID": requestID
        default: nil
        }
    }
}
