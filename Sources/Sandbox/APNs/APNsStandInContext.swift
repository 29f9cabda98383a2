import Hummingbird

/// The stand-in's request context: notes whether the request came as an HTTP/2 stream, which
/// is what the console must use with APNs.
struct APNsStandInContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let isHTTP2: Bool
    /// The TCP connection the request came on, so tests can see pushes share one.
    let connection: ObjectIdentifier

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        // An HTTP/2 stream is a child channel of its connection, itself a child of the listening
        // socket; an HTTP/1 connection is only the latter.
        self.isHTTP2 = source.channel.parent?.parent != nil
        self.connection = ObjectIdentifier(isHTTP2 ? (source.channel.parent ?? source.channel) : source.channel)
    }
}
