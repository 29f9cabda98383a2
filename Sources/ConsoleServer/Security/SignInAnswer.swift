import HTTPTypes
import Hummingbird
import NIOCore

/// What a request without a live session is answered. Pages get the redirect to sign-in; the
/// event stream, which a page's script reads (`EventSource`) and which cannot show a page, gets
/// 401 with the same cookie changes: the script tries again later instead of reading HTML.
enum SignInAnswer {
    static func adapted(_ response: Response, for request: Request) -> Response {
        guard request.uri.path == SiteURL.events.path, response.status == .seeOther else { return response }
        var answer = Response(
            status: .unauthorized, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: "Sign in to follow changes.\n")))
        for cookie in response.headers[values: .setCookie] { answer.headers.append(HTTPField(name: .setCookie, value: cookie)) }
        return answer
    }
}
