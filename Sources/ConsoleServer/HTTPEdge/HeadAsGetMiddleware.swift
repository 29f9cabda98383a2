import Hummingbird

/// Answers HEAD exactly as GET, without the body: everything inside sees a GET, so every
/// page, static file and error page gets the same status and headers (Content-Length included).
/// The context still says it is a HEAD, for a handler whose GET records something (an export).
struct HeadAsGetMiddleware<Context: HeadMarkingRequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .head else { return try await next(request, context) }
        var head = request.head
        head.method = .get
        var context = context
        context.answersHead = true
        return try await next(Request(head: head, body: request.body), context).createHeadResponse()
    }
}

/// A request context that can say the GET it carries is a HEAD whose body is never sent.
protocol HeadMarkingRequestContext: RequestContext {
    var answersHead: Bool { get set }
}
