import Hummingbird

/// Answers HEAD exactly as GET, without the body: everything inside sees a GET, so every
/// page, static file and error page gets the same status and headers (Content-Length included).
struct HeadAsGetMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .head else { return try await next(request, context) }
        var head = request.head
        head.method = .get
        return try await next(Request(head: head, body: request.body), context).createHeadResponse()
    }
}
