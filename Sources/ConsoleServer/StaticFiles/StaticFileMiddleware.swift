import Foundation
import HTTPTypes
import Hummingbird

/// Serves `/static/<name>` from the start-up `StaticFileLibrary`, with validators and
/// caching; any other name under `/static/` is the console's 404 page.
struct StaticFileMiddleware<Context: RequestContext>: RouterMiddleware {
    static var prefix: String { SiteURL.staticFilePrefix }
    /// Our files change only with a deployment; an hour keeps pages quick without pinning old CSS for long.
    static var cacheControl: String { "public, max-age=3600" }

    let library: StaticFileLibrary

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // HEAD arrives here as GET (`HeadAsGetMiddleware` runs first and drops the body).
        guard path.hasPrefix(Self.prefix), request.method == .get else {
            return try await next(request, context)
        }
        // Served before routing: named here so metrics and the request log see a pattern, not "Unknown".
        context.coreContext.endpointPath.value = Self.prefix + "{name}"
        guard let file = library.file(named: path.dropFirst(Self.prefix.count)) else { throw ConsoleError.notFound }
        var headers: HTTPFields = [
            .contentType: file.type.contentType, .eTag: file.entityTag, .lastModified: file.lastModified, .cacheControl: Self.cacheControl,
        ]
        if isNotModified(file, request: request) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(file.bytes.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.bytes))
    }

    /// If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2); a date is honoured
    /// when it is the one we sent, which is what browsers send back.
    private func isNotModified(_ file: StaticFile, request: Request) -> Bool {
        let tags = request.headers[values: .ifNoneMatch].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        if !tags.isEmpty {
            return tags.contains { $0 == "*" || $0 == file.entityTag || $0 == "W/" + file.entityTag }
        }
        return request.headers[.ifModifiedSince] == file.lastModified
    }
}
