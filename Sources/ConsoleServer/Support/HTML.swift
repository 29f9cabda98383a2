import Hummingbird

/// A rendered page: `text/html; charset=utf-8`.
struct HTML: ResponseGenerator {
    let html: String
    var status: HTTPResponse.Status = .ok

    func response(from request: Request, context: some RequestContext) throws -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
