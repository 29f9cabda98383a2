import HTTPTypes
import Hummingbird

/// The headers the real backend's Django middleware adds to every answer (security,
/// clickjacking, locale, gzip, the API cache rules), as recorded in `Tests/Fixtures/headers`,
/// so that client code which depends on headers meets them in tests too.
enum DjangoHeaders {
    /// GZipMiddleware leaves shorter bodies alone, and then does not add `Accept-Encoding` to `Vary`.
    static let gzipMinimumBytes = 200

    // HTTPTypes names only some headers; these are spelled out once.
    private static let referrerPolicy = HTTPField.Name("Referrer-Policy")
    private static let openerPolicy = HTTPField.Name("Cross-Origin-Opener-Policy")
    private static let frameOptions = HTTPField.Name("X-Frame-Options")

    static func add(to response: inout Response) {
        response.headers[.xContentTypeOptions] = "nosniff"
        if let referrerPolicy { response.headers[referrerPolicy] = "same-origin" }
        if let openerPolicy { response.headers[openerPolicy] = "same-origin" }
        response.headers[.contentLanguage] = "en"
        response.headers[.vary] = vary(for: response).joined(separator: ", ")
        // CommonMiddleware's slash redirect answers before the clickjacking middleware runs.
        if response.status != .movedPermanently, let frameOptions { response.headers[frameOptions] = "DENY" }
    }

    /// `Vary` as the real backend sends it: the session and locale middleware add `Cookie` and
    /// `Accept-Language`; the API cache rules drop `Cookie` from public answers; gzip adds
    /// `Accept-Encoding` to bodies long enough to compress.
    static func vary(for response: Response) -> [String] {
        if response.status == .movedPermanently { return ["Accept-Language", "Cookie"] }
        let isPublic = response.headers[.cacheControl]?.contains("public") ?? false
        var values = isPublic && (200..<300).contains(response.status.code) ? ["Accept-Language"] : ["Cookie", "Accept-Language"]
        if (response.body.contentLength ?? 0) >= gzipMinimumBytes { values.append("Accept-Encoding") }
        return values
    }
}
