import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request, once its head arrived, is not fully received within
/// `deadline`. The server's idle timeout does not stop a client that trickles one body byte
/// every few seconds (each byte counts as activity); this bounds the whole read.
final class RequestReadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            timer?.cancel()
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: deadline) {
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
