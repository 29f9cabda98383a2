import HTTPTypes
import Hummingbird

/// Headers every answer carries: a strict Content-Security-Policy (no inline script;
/// images from us and the backend's media origin), no framing, no sniffing, no caching of pages
/// (static files say their own), and behind TLS, HSTS so browsers never try plain HTTP again.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let contentSecurityPolicy: String
    let strictTransportSecurity: Bool
    // HTTPTypes names only some headers; these are spelled out once.
    private let extraHeaders: [(HTTPField.Name, String)] = [
        ("Referrer-Policy", "same-origin"), ("X-Frame-Options", "DENY"), ("Cross-Origin-Opener-Policy", "same-origin"),
    ].compactMap { name, value in HTTPField.Name(name).map { ($0, value) } }

    init(mediaOrigin: String, strictTransportSecurity: Bool = false) {
        self.strictTransportSecurity = strictTransportSecurity
        contentSecurityPolicy = [
            "default-src 'self'", "img-src 'self' \(mediaOrigin) data:", "style-src 'self'", "script-src 'self'",
            "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        for (name, value) in extraHeaders { response.headers[name] = value }
        if strictTransportSecurity { response.headers[.strictTransportSecurity] = "max-age=31536000" }
        // Static files set their own caching; everything else, error pages included, is not kept.
        if response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
