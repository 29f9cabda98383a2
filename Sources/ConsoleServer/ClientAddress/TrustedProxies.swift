import Foundation

/// The proxies whose forwarding headers the console believes (`--trusted-proxy`). With
/// none, `X-Forwarded-For` and `Forwarded` are ignored: anyone could write them.
public struct TrustedProxies: Sendable, Equatable {
    let ranges: [IPAddressRange]

    public static let none = TrustedProxies(ranges: [])

    init(ranges: [IPAddressRange]) {
        self.ranges = ranges
    }

    /// Parses addresses and CIDR ranges; a list item may itself hold several, comma-separated.
    public init(parsing items: [String]) throws(TrustedProxiesError) {
        var ranges: [IPAddressRange] = []
        for item in items.flatMap({ $0.split(separator: ",") }) {
            let text = item.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            guard let range = IPAddressRange(text) else { throw .invalid(text) }
            ranges.append(range)
        }
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    func trusts(_ address: IPAddress) -> Bool {
        ranges.contains { $0.contains(address) }
    }

    /// The client behind `peer`: the forwarded chain is walked from the nearest hop outwards,
    /// skipping trusted proxies; the first untrusted hop is the client. A hop that is not an
    /// address stops the walk at the last trusted one, whose word cannot be checked further.
    func client(peer: String, forwardedFor chain: [String]) -> String {
        guard let peerAddress = IPAddress(peer), trusts(peerAddress) else { return peer }
        var client = peerAddress
        for hop in chain.reversed() {
            guard let address = IPAddress(hop) else { break }
            client = address
            if !trusts(address) { break }
        }
        return client.description
    }
}

public enum TrustedProxiesError: Error, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let text):
            "'\(text)' is not an IP address or CIDR range. Give proxies as 10.0.0.1, 10.0.0.0/8 or fd00::/8, comma-separated."
        }
    }
}
