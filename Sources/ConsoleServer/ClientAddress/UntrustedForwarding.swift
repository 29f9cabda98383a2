import Foundation
import Logging
import Synchronization

/// Notices requests that carry a forwarding header (`X-Forwarded-For`, `Forwarded`) from a
/// peer that is not a trusted proxy: behind a proxy someone forgot to name with
/// `--trusted-proxy`, every person counts as the proxy's one address, so one stranger's failed
/// sign-ins pause everyone's and the audit log names the proxy. Logged once, as a warning, and
/// shown on the dashboard until the console restarts with the option.
final class UntrustedForwarding: Sendable {
    private let firstPeer = Mutex<String?>(nil)
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Where a proxy in front of the console usually is: loopback and private networks. A
    /// forwarding header from anywhere else is a client's own and says nothing of a proxy, and
    /// naming its address on the dashboard would invite trusting a stranger.
    private static let proxyNetworks = ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1/128", "fc00::/7", "fe80::/10"]
        .compactMap(IPAddressRange.init)

    /// A request with a forwarding header came from `peer`, which is not trusted.
    func note(peer: String) {
        guard let address = IPAddress(peer), Self.proxyNetworks.contains(where: { $0.contains(address) }) else { return }
        let isFirst = firstPeer.withLock { first in
            guard first == nil else { return false }
            first = peer
            return true
        }
        guard isFirst else { return }
        logger.warning(
            "requests carry forwarding headers from an address that is not a trusted proxy: every client counts as that address",
            metadata: ["peer": "\(peer)", "fix": "start the console with --trusted-proxy \(peer) if it is your proxy"])
    }

    /// What the dashboard says, `nil` while no such request came.
    var warning: String? {
        firstPeer.withLock { $0 }.map { peer in
            "Requests reach the console through \(peer) with forwarding headers, but \(peer) is not a trusted proxy: every person counts as that one address, so sign-in limits and the audit log cannot tell people apart. If \(peer) is your proxy, start the console with --trusted-proxy \(peer)."
        }
    }
}
