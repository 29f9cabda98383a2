import Foundation
import HTTPTypes
import Hummingbird

/// Answers `POST /3/device/<token>` as APNs does, checking what Apple checks in about the
/// order it does, with any faults switched on, and notes every push it received.
struct APNsStandInResponder: HTTPResponder {
    typealias Context = APNsStandInContext

    let verifier: APNsProviderTokenVerifier
    let topic: String
    let faults: APNsFaults
    let log: APNsPushLog
    /// The wall clock provider tokens' age is read from.
    let now: @Sendable () -> Date

    private static let devicePrefix = "/3/device/"
    /// The push types APNs documents.
    private static let pushTypes: Set<String> = [
        "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk", "widgets",
        "controls",
    ]
    private static let priorities: Set<String> = ["1", "5", "10"]
    static let maxPayloadBytes = 4096

    func respond(to request: Request, context: Context) async throws -> Response {
        let delay = await faults.answerDelay
        if delay > .zero { try await Task.sleep(for: delay) }
        let path = request.uri.path
        guard path.hasPrefix(Self.devicePrefix) else { return Self.answer(.badPath, apnsID: nil) }
        guard request.method == .post else { return Self.answer(.methodNotAllowed, apnsID: nil) }
        let token = String(path.dropFirst(Self.devicePrefix.count))
        let headers = Self.headers(of: request)
        let apnsID = headers["apns-id"] ?? UUID().uuidString.lowercased()
        // One byte over the limit is enough to know it is too large.
        let body = try? await request.body.collect(upTo: Self.maxPayloadBytes + 1)
        let payload = body.map { String(buffer: $0) } ?? ""
        let rejection = await check(headers: headers, token: token, body: body, authority: request.head.authority ?? "")
        await log.append(
            APNsReceivedPush(
                deviceToken: token, authority: request.head.authority ?? "", headers: headers.filter { $0.key != "authorization" }, payload: payload,
                receivedAt: now(),
                status: Int(rejection?.status.code ?? 200), reason: rejection?.reason ?? "",
                httpVersion: context.isHTTP2 ? "HTTP/2" : "HTTP/1.1"),
            connection: context.connection)
        return Self.answer(rejection, apnsID: apnsID)
    }

    private func check(headers: [String: String], token: String, body: ByteBuffer?, authority: String) async -> APNsRejection? {
        if await faults.takeUnavailable() { return .serviceUnavailable }
        if let rejection = verifier.check(authorization: headers["authorization"], now: now()) { return rejection }
        if await faults.takeExpiredProviderToken() { return .expiredProviderToken }
        if let rejection = Self.checkHeaders(headers, topic: topic) { return rejection }
        guard Self.isDeviceToken(token) else { return .badDeviceToken }
        if await faults.refusesAsOtherEnvironment(token, host: Self.host(of: authority)) { return .badDeviceToken }
        guard let body else { return .payloadTooLarge }
        if let rejection = Self.checkPayload(body) { return rejection }
        if await faults.takeTooManyRequests() { return .tooManyRequests }
        if await faults.isUnregistered(token) { return .unregistered }
        return nil
    }

    private static func checkHeaders(_ headers: [String: String], topic: String) -> APNsRejection? {
        guard let requestTopic = headers["apns-topic"], !requestTopic.isEmpty else { return .missingTopic }
        guard requestTopic == topic else { return .topicDisallowed }
        guard let pushType = headers["apns-push-type"], pushTypes.contains(pushType) else { return .invalidPushType }
        if let id = headers["apns-id"], UUID(uuidString: id) == nil { return .badMessageID }
        if let priority = headers["apns-priority"], !priorities.contains(priority) { return .badPriority }
        if let expiration = headers["apns-expiration"], Int(expiration) == nil { return .badExpirationDate }
        return nil
    }

    /// The host of an `:authority` (`localhost:8082` → `localhost`; `[::1]:8082` → `[::1]`).
    private static func host(of authority: String) -> String {
        guard let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") else { return authority }
        return String(authority[..<colon])
    }

    /// 64 hexadecimal digits, as APNs hands tokens to apps.
    private static func isDeviceToken(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
    }

    private static func checkPayload(_ body: ByteBuffer) -> APNsRejection? {
        guard body.readableBytes <= maxPayloadBytes else { return .payloadTooLarge }
        guard body.readableBytes > 0 else { return .payloadEmpty }
        let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))
        guard object is [String: Any] else { return .badPayload }
        return nil
    }

    /// Header names lower-cased; a repeated header keeps its first value.
    private static func headers(of request: Request) -> [String: String] {
        var headers: [String: String] = [:]
        for field in request.headers where headers[field.name.canonicalName] == nil {
            headers[field.name.canonicalName] = field.value
        }
        return headers
    }

    /// 200 with `apns-id`, or the status with Apple's `{"reason": …}` body (410 adds `timestamp`).
    private static func answer(_ rejection: APNsRejection?, apnsID: String?) -> Response {
        var headers: HTTPFields = [:]
        if let apnsID, let name = HTTPField.Name("apns-id") { headers[name] = apnsID }
        guard let rejection else { return Response(status: .ok, headers: headers) }
        headers[.contentType] = "application/json"
        var body = #"{"reason":"\#(rejection.reason)""#
        if rejection.status == .gone { body += #","timestamp":\#(Int(Date().timeIntervalSince1970 * 1000))"# }
        body += "}"
        return Response(status: rejection.status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
