import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Posts each message's envelope to a configured URL, signed (see `WebhookSignature`), with
/// the message id as `Idempotency-Key` so a receiver can drop the copy a retry sends.
/// 2xx is delivered; 408, 429, 5xx, timeouts and connection errors are tried again later;
/// any other answer is refused for good.
public final class WebhookTransport: OutboxTransport {
    public let name = "webhook"
    public static let idempotencyKeyHeader = "Idempotency-Key"

    private let configuration: WebhookConfiguration
    private let signature: WebhookSignature
    private let http: HTTPClient
    private let now: @Sendable () -> Date

    /// How much of a refusal's body is kept in the reason.
    private static let reasonBodyCharacters = 200

    /// `now` stamps each request; tests move it to sign in the past.
    public init(configuration: WebhookConfiguration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.signature = WebhookSignature(secret: configuration.secret)
        self.now = now
        let timeout = TimeAmount(configuration.timeout)
        var httpConfiguration = HTTPClient.Configuration(timeout: .init(connect: timeout, read: timeout))
        // A redirect would carry a signed body somewhere nobody configured.
        httpConfiguration.redirectConfiguration = .disallow
        // A refused connection is a retry later (the dispatcher backs off), not a wait here.
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
    }

    public func deliver(_ delivery: OutboxDelivery) async -> [DeliveryResult] {
        let body: Data
        do {
            body = try OutboxEnvelope(delivery).encoded()
        } catch {
            return [DeliveryResult(outcome: .failed, reason: (error as? OutboxEnvelopeError)?.description ?? "the message could not be encoded as JSON")]
        }
        let timestamp = Int(now().timeIntervalSince1970)
        var request = HTTPClientRequest(url: configuration.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: WebhookSignature.timestampHeader, value: String(timestamp))
        request.headers.add(name: WebhookSignature.signatureHeader, value: signature.sign(body: body, timestamp: timestamp))
        request.headers.add(name: Self.idempotencyKeyHeader, value: delivery.message.id)
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await http.execute(request, timeout: TimeAmount(configuration.timeout))
            let answer = try await Self.firstBytes(of: response.body, limit: 1024)
            return [result(status: Int(response.status.code), reasonPhrase: response.status.reasonPhrase, headers: response.headers, body: answer)]
        } catch {
            return [DeliveryResult(outcome: .retry, reason: transportFailure(error))]
        }
    }

    public func shutdown() async {
        try? await http.shutdown()
    }

    private func result(status: Int, reasonPhrase: String, headers: HTTPHeaders, body: Data) -> DeliveryResult {
        let answered = "\(status) \(reasonPhrase)"
        switch status {
        case 200..<300:
            return DeliveryResult(outcome: .delivered, httpStatus: status)
        case 408, 429, 500..<600:
            let retryAfter = headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { TimeInterval(max($0, 0)) }
            return DeliveryResult(
                outcome: .retry, httpStatus: status, reason: "the webhook answered \(answered)\(Self.snippet(body))",
                retryAfter: retryAfter)
        default:
            return DeliveryResult(
                outcome: .failed, httpStatus: status,
                reason: "the webhook refused the message with \(answered)\(Self.snippet(body)); check the webhook URL and the receiver's log")
        }
    }

    private func transportFailure(_ error: any Error) -> String {
        let place = "the webhook at \(configuration.url.host ?? configuration.url.absoluteString)"
        if let error = error as? HTTPClientError, [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error) {
            return "\(place) did not answer within \(Self.seconds(configuration.timeout))"
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return "\(place) did not answer within \(Self.seconds(configuration.timeout))"
        }
        let refused =
            (error as? NIOConnectionError).map {
                !$0.connectionErrors.isEmpty && $0.connectionErrors.allSatisfy { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            }
            ?? ((error as? IOError)?.errnoCode == ECONNREFUSED)
        if refused {
            return "\(place) refused the connection (is the receiver running?)"
        }
        return "the connection to \(place) failed before it answered"
    }

    /// At most `limit` bytes of a body: enough to explain a refusal, whatever its size.
    private static func firstBytes(of body: HTTPClientResponse.Body, limit: Int) async throws -> Data {
        var bytes = Data()
        for try await chunk in body {
            bytes.append(contentsOf: chunk.readableBytesView.prefix(limit - bytes.count))
            if bytes.count >= limit { break }
        }
        return bytes
    }

    /// `: <the first 200 characters>` of an answer, on one line with no control characters, or nothing.
    private static func snippet(_ body: Data) -> String {
        let text = String(decoding: body, as: UTF8.self)
        var cleaned = ""
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            let isSpace = scalar.properties.isWhitespace || scalar.properties.generalCategory == .control
            if isSpace {
                if !lastWasSpace { cleaned.unicodeScalars.append(" ") }
            } else {
                cleaned.unicodeScalars.append(scalar)
            }
            lastWasSpace = isSpace
        }
        let kept = cleaned.trimmingCharacters(in: .whitespaces)
        guard !kept.isEmpty else { return "" }
        return ": " + (kept.count > reasonBodyCharacters ? String(kept.prefix(reasonBodyCharacters)) + "…" : kept)
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        let value = Double(whole) + Double(fraction) / 1e18
        return value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
