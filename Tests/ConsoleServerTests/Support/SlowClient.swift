import NIOCore
import NIOPosix

/// A client that talks to a server over a bare TCP connection as slowly as an attacker
/// would: some bytes at once, then one byte at a time.
enum SlowClient {
    /// What happened on the connection.
    struct Outcome: Sendable {
        /// How long after the first byte the server closed the connection; nil if it was still open at the limit.
        let closedAfter: Duration?
        /// Everything the server sent.
        let received: String
    }

    /// Sends `start`, then `trickle` one byte per `interval`, until the server closes the
    /// connection or `limit` has passed since the first byte.
    static func run(
        port: Int, start: String, trickle: String = "", interval: Duration = .milliseconds(200), limit: Duration
    ) async throws -> Outcome {
        let connection = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let clock = ContinuousClock()
        let began = clock.now
        return try await connection.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Event.self) { tasks in
                tasks.addTask {
                    var received = ""
                    do {
                        for try await chunk in inbound { received += String(buffer: chunk) }
                    } catch {
                        // A reset (the server closed with our bytes unread) is a close too.
                    }
                    return .closed(after: clock.now - began, received: received)
                }
                tasks.addTask {
                    do {
                        try await outbound.write(ByteBuffer(string: start))
                        for byte in trickle {
                            try await Task.sleep(for: interval)
                            try await outbound.write(ByteBuffer(string: String(byte)))
                        }
                    } catch {
                        // A write fails once the server has closed; the reader reports when.
                    }
                    try? await Task.sleep(until: began + limit)
                    return .limitReached
                }
                // The first to finish decides: the reader when the server closes, the writer at the limit.
                switch try await tasks.next() {
                case .closed(let after, let received):
                    tasks.cancelAll()
                    return Outcome(closedAfter: after, received: received)
                case .limitReached, nil:
                    // Still open: close it ourselves, which ends the reader with what it got.
                    connection.channel.close(promise: nil)
                    guard case .closed(_, let received) = try await tasks.next() else { return Outcome(closedAfter: nil, received: "") }
                    return Outcome(closedAfter: nil, received: received)
                }
            }
        }
    }

    private enum Event: Sendable {
        case closed(after: Duration, received: String)
        case limitReached
    }
}
