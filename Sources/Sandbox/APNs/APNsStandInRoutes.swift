import Foundation
import HTTPTypes
import Hummingbird

/// The stand-in's pages on the sandbox's plain-HTTP port: what it received (HTML and JSON)
/// and its faults, for the demo and for tests that run the sandbox as a separate process.
struct APNsStandInRoutes: Sendable {
    static let prefix = "/apns/"
    let standIn: APNsStandIn
    /// The largest fault settings body read.
    private static let maxBodyBytes = 64 * 1024

    func respond(to request: Request, path: String) async throws -> Response {
        switch (path, request.method) {
        case ("/apns/pushes", .get):
            let page = APNsPushesPage(pushes: await standIn.log.pushes(), total: await standIn.log.total)
            return Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: page.html())))
        case ("/apns/pushes.json", .get):
            return try Self.json(PushList(total: await standIn.log.total, pushes: await standIn.log.pushes()))
        case ("/apns/faults", .get):
            return try Self.json(await standIn.faults.current())
        case ("/apns/faults", .post):
            let body = try await request.body.collect(upTo: Self.maxBodyBytes)
            guard let settings = try? JSONDecoder().decode(APNsFaultSettings.self, from: Data(body.readableBytesView)) else {
                return Self.text(
                    .badRequest,
                    #"Send a JSON object such as {"unregistered":["<64 hex digits>"],"badDeviceToken":{"<64 hex digits>":"localhost"},"tooManyRequests":1,"unavailable":2,"delayMilliseconds":500,"expireProviderToken":1}."#
                )
            }
            await standIn.faults.apply(settings)
            return try Self.json(await standIn.faults.current())
        case ("/apns/faults", .delete):
            await standIn.faults.clear()
            return try Self.json(await standIn.faults.current())
        case ("/apns/pushes", _), ("/apns/pushes.json", _):
            return SandboxResponse.methodNotAllowed(allow: [.get])
        case ("/apns/faults", _):
            return SandboxResponse.methodNotAllowed(allow: [.get, .post, .delete])
        default:
            return SandboxResponse.htmlNotFound(path: path)
        }
    }

    private struct PushList: Encodable {
        let total: Int
        let pushes: [APNsReceivedPush]
    }

    private static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(data: try encoder.encode(value))))
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: message)))
    }
}
