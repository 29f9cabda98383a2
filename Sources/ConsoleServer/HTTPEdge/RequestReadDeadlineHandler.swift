import Logging
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request, once its head arrived, is not fully received within
/// `deadline`. The server's idle timeout does not stop a client that trickles one body byte
/// every few seconds (each byte counts as activity); this bounds the whole read.
final class RequestReadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let deadline: TimeAmount
    private let logger: Logger
    private var timer: Scheduled<Void>?

    init(deadline: TimeAmount, logger: Logger) {
        self.deadline = deadline
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            timer?.cancel()
            let logger = logger
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) {
                // Notice, not error: a slow or hostile client, nothing wrong with the console.
                logger.notice(
                    "request not received within the read deadline; connection closed",
                    metadata: ["client": "\(context.remoteAddress?.description ?? "unknown")"])
                context.close(promise: nil)
            }
        case .body:
            break
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }
}

@available(*, unavailable)
extension RequestReadDeadlineHandler: Sendable {}
