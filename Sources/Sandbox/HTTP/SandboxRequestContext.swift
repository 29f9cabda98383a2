import Hummingbird
import NIOCore

/// The sandbox's request context: the basics plus the connecting address, which the rate
/// limiter needs when no `X-Forwarded-For` is sent.
public struct SandboxRequestContext: RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
