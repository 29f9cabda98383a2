import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as bytes (IPv4-mapped IPv6 addresses count as IPv4), parsed
/// from what proxies write: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`.
struct IPAddress: Equatable, Sendable, CustomStringConvertible {
    let bytes: [UInt8]

    init?(_ text: some StringProtocol) {
        var host = text.trimmingCharacters(in: .whitespaces)
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = String(host[..<colon])  // IPv4 with a port
        }
        if let zone = host.firstIndex(of: "%") { host = String(host[..<zone]) }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            let all = withUnsafeBytes(of: &v6) { Array($0) }
            let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
            bytes = Array(all.prefix(12)) == mappedPrefix ? Array(all.suffix(4)) : all
        } else {
            return nil
        }
    }

    /// What one party is counted as when sharing a limit by address: an IPv4 address itself,
    /// an IPv6 address's /64 (one home or host is given a whole /64 and can pick any address in it).
    static func group(of text: String) -> String {
        guard let address = IPAddress(text) else { return text }
        guard address.bytes.count == 16 else { return address.description }
        return IPAddress(bytes: Array(address.bytes.prefix(8)) + Array(repeating: 0, count: 8)).description + "/64"
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, &copy, &text, socklen_t(text.count)) != nil else { return "unknown" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An address range in CIDR notation (`10.0.0.0/8`, `fd00::/8`); a bare address is a range of one.
struct IPAddressRange: Equatable, Sendable {
    let network: IPAddress
    let prefixLength: Int

    init?(_ text: some StringProtocol) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let network = IPAddress(first) else { return nil }
        let bits = network.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            // `::ffff:10.0.0.0/104` is the IPv4 range `10.0.0.0/8`.
            prefixLength = network.bytes.count == 4 && first.contains(":") ? max(0, length - 96) : length
        } else {
            prefixLength = bits
        }
        self.network = network
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for (mine, theirs) in zip(network.bytes, address.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard mine & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }
}
