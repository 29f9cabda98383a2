import BookCornersAPI
import Foundation
import HTTPTypes
import Hummingbird

/// Builds answers that look like the real backend's, down to content types and caching headers.
enum SandboxResponse {
    private static let encoder = BackendJSON.encoder()

    static func json(
        _ value: some Encodable, status: HTTPResponse.Status = .ok, cacheControl: String? = nil
    ) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let cacheControl { headers[.cacheControl] = cacheControl }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(value))))
    }

    static func error(_ error: SandboxError) -> Response {
        let body = (try? encoder.encode(error)) ?? Data(#"{"message": "Server error.", "details": null}"#.utf8)
        return Response(
            status: error.status, headers: [.contentType: error.contentType],
            body: .init(byteBuffer: ByteBuffer(data: body)))
    }

    /// Django's HTML "Page not found" for unknown paths and wrong trailing slashes.
    static func htmlNotFound(path: String) -> Response {
        let escaped = path.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
              <meta http-equiv="content-type" content="text/html; charset=utf-8">
              <title>Page not found at \(escaped)</title>
            </head>
            <body><h1>Page not found <small>(404)</small></h1><p>No route matches \(escaped).</p></body>
            </html>
            """
        return Response(
            status: .notFound, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func methodNotAllowed(allow: [HTTPRequest.Method]) -> Response {
        Response(
            status: .methodNotAllowed,
            headers: [.contentType: "text/html; charset=utf-8", .allow: allow.map(\.rawValue).joined(separator: ", ")],
            body: .init(byteBuffer: ByteBuffer(string: "Method not allowed")))
    }

    /// Django's APPEND_SLASH redirect.
    static func movedPermanently(to location: String) -> Response {
        Response(
            status: .movedPermanently, headers: [.contentType: "text/html; charset=utf-8", .location: location])
    }

    static func png(_ bytes: [UInt8]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "image/png", .cacheControl: "public, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
