import ConsoleServer
import Foundation
import Hummingbird
import NIOCore
import TestSupport

/// A webhook endpoint on loopback that does what a real receiver should: it checks every
/// request's signature and timestamp with `WebhookSignature.verify` (401 when refused), then
/// answers as the test scripted, and keeps what it received.
actor WebhookReceiver {
    /// How the receiver answers an accepted request.
    enum Answer: Sendable {
        case status(Int, body: String = "", retryAfter: String? = nil)
        /// Answers 200 only after `delay`: longer than the transport waits.
        case hang(Duration)
    }

    /// One request as it arrived.
    struct Received: Sendable {
        let body: Data
        let timestamp: String
        let signature: String
        let idempotencyKey: String
        let contentType: String
        /// Why the signature check refused it; nil when accepted.
        let refusal: WebhookSignature.Refusal?
    }

    private let signature: WebhookSignature
    private var answers: [Answer]
    private(set) var received: [Received] = []
    /// Added to the receiver's clock: a test moves it on to replay a request later.
    private var clockOffset: TimeInterval = 0

    private init(secret: Data, answers: [Answer]) {
        self.signature = WebhookSignature(secret: secret)
        self.answers = answers
    }

    /// Runs a receiver at `http://127.0.0.1:<port>/hooks/book-corners` around `body`. It
    /// answers accepted requests with `answers` in order, then 200.
    static func run<Result: Sendable>(
        secret: Data, answers: [Answer] = [], _ body: (WebhookReceiver, String) async throws -> Result
    ) async throws -> Result {
        let receiver = WebhookReceiver(secret: secret, answers: answers)
        let router = Router()
        router.post("/hooks/book-corners") { request, _ in
            try await receiver.handle(request)
        }
        return try await withRunningRouter(router) { port in
            try await body(receiver, "http://127.0.0.1:\(port)/hooks/book-corners")
        }
    }

    func moveClock(by seconds: TimeInterval) {
        clockOffset += seconds
    }

    private func handle(_ request: Request) async throws -> Response {
        let bytes = try await request.body.collect(upTo: 1 << 20)
        func header(_ name: String) -> String {
            request.headers.first { $0.name.canonicalName == name.lowercased() }?.value ?? ""
        }
        let body = Data(bytes.readableBytesView)
        let timestamp = header(WebhookSignature.timestampHeader)
        let signatureValue = header(WebhookSignature.signatureHeader)
        var refusal: WebhookSignature.Refusal?
        do throws(WebhookSignature.Refusal) {
            try signature.verify(body: body, timestamp: timestamp, signature: signatureValue, now: Date().addingTimeInterval(clockOffset))
        } catch {
            refusal = error
        }
        received.append(
            Received(
                body: body, timestamp: timestamp, signature: signatureValue, idempotencyKey: header("Idempotency-Key"),
                contentType: header("Content-Type"), refusal: refusal))
        if let refusal { return Self.response(401, refusal.description) }
        switch answers.isEmpty ? .status(200) : answers.removeFirst() {
        case .status(let code, let text, let retryAfter):
            var response = Self.response(code, text)
            if let retryAfter { response.headers[.retryAfter] = retryAfter }
            return response
        case .hang(let delay):
            try? await Task.sleep(for: delay)
            return Self.response(200, "")
        }
    }

    private static func response(_ code: Int, _ text: String) -> Response {
        Response(status: .init(code: code), headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
