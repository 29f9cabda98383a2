import Hummingbird

/// A rendered page: `text/html; charset=utf-8`.
struct HTML: ResponseGenerator {
    let html: String
    var status: HTTPResponse.Status = .ok

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = ByteBuffer(string: html)
        (context as? ConsoleRequestContext)?.pageCapture?.keep(body)
        return Self.response(body: body, status: status)
    }

    /// A page's bytes as a response, rendered now or kept from a moment ago (`RecentPages`).
    static func response(body: ByteBuffer, status: HTTPResponse.Status) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: body))
    }
}
