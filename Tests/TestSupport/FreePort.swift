import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for test servers, taken from below the kernel's ephemeral range.
///
/// A port from `bind(0)` comes from the same range the kernel uses for outgoing
/// connections, so once a test stops a server, any connection opened by a test running
/// beside it may take that port as its local end, and restarting the server there fails
/// with "address in use". Below the ephemeral range only a deliberate bind takes a port,
/// and each port is handed out once per process.
public enum FreePort {
    private static let next = Mutex(firstCandidate())

    /// A port nobody listens on now, that outgoing connections will not take.
    public static func find() throws -> Int {
        let limit = ephemeralRangeStart()
        for _ in 0..<1000 {
            let port = next.withLock { port in
                defer { port = port + 1 < limit ? port + 1 : lowestPort }
                return port
            }
            if canBind(port) { return port }
        }
        throw FreePortError.noneFree
    }

    private static let lowestPort = 20_000

    /// Spreads test processes that run at the same time over the range.
    private static func firstCandidate() -> Int {
        lowestPort + Int(getpid() % 500) * 20
    }

    private static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let start = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        return max(start, lowestPort + 1000)
    }

    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // Servers set SO_REUSEADDR, so a port held only by TIME_WAIT sockets counts as free.
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0
    }
}

public enum FreePortError: Error, CustomStringConvertible {
    case noneFree

    public var description: String { "No free loopback port below the ephemeral range." }
}
