import NIOCore
import NIOPosix

/// A TCP connection that sends one request, reads the first bytes of the answer once (its
/// status line), and never reads again, with a small receive window: the server's writes to it
/// soon wait, as they would for a frozen tab.
final class UnreadConnection: Sendable {
    /// The answer's status code.
    let status: Int
    private let channel: any Channel

    private init(status: Int, channel: any Channel) {
        self.status = status
        self.channel = channel
    }

    /// Connects to the console at `port`, sends `request` as it is and reads the first bytes of the answer.
    static func open(port: Int, request: String) async throws -> UnreadConnection {
        let first = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: String.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.so_rcvbuf), value: 4096)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FirstBytes(promise: first)) }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        channel.read()
        let head = try await first.futureResult.get()
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return UnreadConnection(status: status, channel: channel)
    }

    func close() async {
        try? await channel.close()
    }
}

/// Hands over the first bytes read, or fails if the connection closes before any.
private final class FirstBytes: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<String>
    private var done = false

    init(promise: EventLoopPromise<String>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done else { return }
        done = true
        promise.succeed(String(buffer: unwrapInboundIn(data)))
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !done {
            done = true
            promise.fail(ChannelError.inputClosed)
        }
        context.fireChannelInactive()
    }
}
