import Foundation
import HTTPTypes
import Hummingbird

/// Refuses a POST a browser says came from another site: an `Origin` that is not the
/// console's own, or `Sec-Fetch-Site: cross-site`. A second layer beside the CSRF token; a
/// POST with neither header (curl, old browsers) still has to carry the token.
struct OriginCheckMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    /// The console's public origin when configured (`--public-url`); else it is worked out per
    /// request from the scheme (`https` behind a TLS proxy) and the `Host` header.
    let publicOrigin: String?
    let behindTLSProxy: Bool

    private static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        if let name = Self.secFetchSite, request.headers[name]?.lowercased() == "cross-site" {
            throw ConsoleError.crossOrigin
        }
        if let origin = request.headers[.origin] {
            guard let own = ownOrigin(request), Self.normalised(origin) == own else { throw ConsoleError.crossOrigin }
        }
        return try await next(request, context)
    }

    private func ownOrigin(_ request: Request) -> String? {
        if let publicOrigin { return Self.normalised(publicOrigin) }
        guard let host = request.head.authority else { return nil }
        return Self.normalised((behindTLSProxy ? "https" : "http") + "://" + host)
    }

    /// `scheme://host[:port]`, lower-cased, without a default port; `nil` for `null` or junk.
    static func normalised(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = components.port.flatMap { $0 == defaultPort ? nil : $0 }
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart)" + (port.map { ":\($0)" } ?? "")
    }
}
