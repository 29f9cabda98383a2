import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore

/// Every state-changing request carries the session's CSRF token in its form.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        var request = request
        let form = try await request.decodeForm(as: CSRFForm.self, context: context)
        guard let session = context.session, let token = form.csrf, RandomToken.equal(token, session.csrfToken) else {
            throw ConsoleError.csrfMismatch
        }
        return try await next(request, context)
    }
}
