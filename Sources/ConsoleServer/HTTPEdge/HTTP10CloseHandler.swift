import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Answers an HTTP/1.0 request as HTTP/1.0 and closes its connection after the answer.
/// Hummingbird turns every request into version-less HTTP types and answers HTTP/1.1 with
/// the connection kept open (up to the idle timeout), which an HTTP/1.0 client, expecting
/// the server to close, waits out. A 1.0 request is marked `Connection: close` on its way
/// in (Hummingbird ends the connection after answering such a request), and its answer goes
/// out as HTTP/1.0 with `Connection: close`, its body delimited by the close, never chunked.
/// Keep-alive is not offered to 1.0 clients: a body without a length could not be delimited.
final class HTTP10CloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The versions of requests read and not yet answered, oldest first (pipelining).
    private var pendingVersions: [HTTPVersion] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        pendingVersions.append(head.version)
        if head.version == .http1_0 {
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        } else {
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200:
            let version = pendingVersions.isEmpty ? .http1_1 : pendingVersions.removeFirst()
            guard version == .http1_0 else {
                context.write(data, promise: promise)
                return
            }
            head.version = .http1_0
            head.headers.remove(name: "transfer-encoding")
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }
}

/// Puts an `HTTP10CloseHandler` in front of the HTTP-types codec, where a request's version
/// can still be seen: Hummingbird adds the console's handlers after that codec, so this one
/// moves it and then leaves the pipeline.
final class HTTP10CloseInstaller: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Never

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        do {
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(HTTP10CloseHandler(), position: .before(codec))
        } catch {
            // Without the codec there is no HTTP/1 to answer: nothing to do.
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

@available(*, unavailable)
extension HTTP10CloseHandler: Sendable {}

@available(*, unavailable)
extension HTTP10CloseInstaller: Sendable {}
