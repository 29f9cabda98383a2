import Foundation
import HTTPTypes
import Hummingbird

/// Sets the request's client address (for lockouts, the audit log and the backend): the
/// socket peer, or, when the peer is a trusted proxy, the client its forwarding headers name.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let trusted: TrustedProxies

    private static let forwardedFor = HTTPField.Name("X-Forwarded-For")
    private static let forwarded = HTTPField.Name("Forwarded")

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !trusted.isEmpty, let peer = context.remoteAddress?.ipAddress else { return try await next(request, context) }
        var context = context
        context.clientAddress = trusted.client(peer: peer, forwardedFor: Self.chain(request.headers))
        return try await next(request, context)
    }

    /// The forwarded hops, farthest first: `X-Forwarded-For` when present, else the `for=`
    /// parameters of `Forwarded` (RFC 7239). Repeated headers are one list, in order.
    static func chain(_ headers: HTTPFields) -> [String] {
        if let name = forwardedFor, !headers[values: name].isEmpty {
            return headers[values: name].flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        guard let name = forwarded else { return [] }
        return headers[values: name].flatMap { $0.split(separator: ",") }.compactMap { element in
            for pair in element.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
                return parts[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
            // An element without `for=` still is a hop; an unreadable one stops the walk there.
            return "unknown"
        }
    }
}
