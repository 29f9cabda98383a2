import Foundation
import HTTPTypes
import Hummingbird

/// Sets the request's client address (for lockouts, the audit log and the backend): the
/// socket peer, or, when the peer is a trusted proxy, the client its forwarding headers name.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let trusted: TrustedProxies
    let header: ForwardingHeader
    /// Told of forwarding headers from a peer that is not trusted (a proxy nobody named).
    let untrusted: UntrustedForwarding

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let name = header.fieldName, request.headers[name] != nil, let peer = context.remoteAddress?.ipAddress,
            !(IPAddress(peer).map(trusted.trusts) ?? false)
        {
            untrusted.note(peer: peer)
        }
        guard !trusted.isEmpty, let peer = context.remoteAddress?.ipAddress else { return try await next(request, context) }
        var context = context
        context.clientAddress = trusted.client(peer: peer, forwardedFor: Self.chain(request.headers, header: header))
        return try await next(request, context)
    }

    /// The forwarded hops in `header`, farthest first: the addresses of `X-Forwarded-For`, or
    /// the `for=` parameters of `Forwarded` (RFC 7239). Repeated headers are one list, in order.
    static func chain(_ headers: HTTPFields, header: ForwardingHeader) -> [String] {
        guard let name = header.fieldName else { return [] }
        if header == .xForwardedFor {
            return headers[values: name].flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
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
