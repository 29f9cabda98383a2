import Hummingbird

/// Refuses, with the 400 page and before any controller runs, a request whose path or query
/// holds what no console address does: control characters (a NUL would reach the backend and
/// file names), or `.`/`..` path segments.
struct RequestTargetCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let problem = RequestTargetProblem(path: request.uri.path, query: request.uri.query ?? "") {
            throw ConsoleError.badInput(problem.message)
        }
        return try await next(request, context)
    }
}
