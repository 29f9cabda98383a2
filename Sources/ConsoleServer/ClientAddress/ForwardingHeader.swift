import HTTPTypes

/// The one header the trusted proxy writes the client's address into. Only that one is read:
/// a proxy passes the other kind through as the client sent it, so reading it would let the
/// client choose its own address.
public enum ForwardingHeader: String, Sendable, CaseIterable {
    /// `X-Forwarded-For: client, proxy1` (nginx, HAProxy, most load balancers).
    case xForwardedFor = "x-forwarded-for"
    /// `Forwarded: for=client;proto=https` (RFC 7239).
    case forwarded

    var fieldName: HTTPField.Name? {
        switch self {
        case .xForwardedFor: HTTPField.Name("X-Forwarded-For")
        case .forwarded: HTTPField.Name("Forwarded")
        }
    }
}
