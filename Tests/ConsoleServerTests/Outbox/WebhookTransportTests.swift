import AsyncHTTPClient
import ConsoleServer
import Foundation
import ModerationStore
import NIOCore
import TestSupport
import Testing

/// The webhook transport against a real receiver on loopback that verifies every signature.
@Suite("Webhook transport: signed posts, retries and refusals", .timeLimit(.minutes(3)))
struct WebhookTransportTests {
    private let secret = Data("3f9c2a7e1b8d4c6f0a5e9b2d7c1f8a4e6b3d0c9f".utf8)

    private func transport(_ url: String, timeout: Duration = .seconds(5), now: @escaping @Sendable () -> Date = { Date() }) throws -> WebhookTransport {
        WebhookTransport(configuration: try WebhookConfiguration(url: url, secret: secret, timeout: timeout), now: now)
    }

    @Test("a 200 is delivered; the receiver verifies the signature and reads the envelope and the Idempotency-Key")
    func deliveredOn200() async throws {
        try await WebhookReceiver.run(secret: secret) { receiver, url in
            // setup
            let webhook = try transport(url)
            let delivery = OutboxDelivery.sample()

            // act
            let results = await webhook.deliver(delivery)
            await webhook.shutdown()

            // check
            #expect(results == [DeliveryResult(outcome: .delivered, httpStatus: 200)])
            let received = try #require(await receiver.received.first)
            #expect(received.refusal == nil)
            #expect(received.contentType == "application/json")
            #expect(received.idempotencyKey == delivery.message.id)
            #expect(received.signature.hasPrefix("v1=") && received.signature.count == 67)
            #expect(try OutboxEnvelope.decode(received.body) == OutboxEnvelope(delivery))
        }
    }

    @Test("a captured request replayed more than five minutes later is refused by the receiver; so is one signed by a slow clock")
    func replayRefused() async throws {
        try await WebhookReceiver.run(secret: secret) { receiver, url in
            // setup: one request accepted
            let webhook = try transport(url)
            #expect(await webhook.deliver(.sample()).first?.outcome == .delivered)
            await webhook.shutdown()
            let captured = try #require(await receiver.received.first)

            // act: the same bytes and headers again, six minutes on
            await receiver.moveClock(by: 301)
            var replay = HTTPClientRequest(url: url)
            replay.method = .POST
            replay.headers.add(name: "Content-Type", value: "application/json")
            replay.headers.add(name: WebhookSignature.timestampHeader, value: captured.timestamp)
            replay.headers.add(name: WebhookSignature.signatureHeader, value: captured.signature)
            replay.headers.add(name: "Idempotency-Key", value: captured.idempotencyKey)
            replay.body = .bytes(ByteBuffer(bytes: captured.body))
            let answer = try await SandboxFixture.httpClient.execute(replay, timeout: .seconds(10))
            await receiver.moveClock(by: -301)
            let slowClock = try transport(url, now: { Date().addingTimeInterval(-360) })
            let stale = await slowClock.deliver(.sample())
            await slowClock.shutdown()

            // check
            #expect(answer.status.code == 401)
            let received = await receiver.received
            #expect(received.count == 3)
            #expect(received.dropFirst().map(\.refusal) == [.tooOld, .tooOld])
            #expect(stale.first?.outcome == .failed)
            #expect(stale.first?.httpStatus == 401)
            #expect(stale.first?.reason.contains("the timestamp is more than five minutes old") == true, "\(stale)")
        }
    }

    @Test("500, 429 with Retry-After and 408 are tried again later, with the status in words")
    func passingTroubleIsRetry() async throws {
        let answers: [WebhookReceiver.Answer] = [.status(500, body: "upstream down"), .status(429, retryAfter: "17"), .status(408)]
        try await WebhookReceiver.run(secret: secret, answers: answers) { _, url in
            // setup
            let webhook = try transport(url)
            let delivery = OutboxDelivery.sample()

            // act
            let serverError = await webhook.deliver(delivery)
            let tooMany = await webhook.deliver(delivery)
            let timedOut = await webhook.deliver(delivery)
            await webhook.shutdown()

            // check
            #expect(
                serverError == [
                    DeliveryResult(
                        outcome: .retry, httpStatus: 500, reason: "the webhook answered 500 Internal Server Error: upstream down")
                ])
            #expect(
                tooMany == [
                    DeliveryResult(
                        outcome: .retry, httpStatus: 429, reason: "the webhook answered 429 Too Many Requests", retryAfter: 17)
                ])
            #expect(timedOut.first?.outcome == .retry && timedOut.first?.httpStatus == 408)
        }
    }

    @Test("a 404 fails for good, with the status and the start of the body on one line")
    func notFoundFails() async throws {
        let page = "<h1>Not\n\tFound</h1>\r\n" + String(repeating: "x", count: 500)
        try await WebhookReceiver.run(secret: secret, answers: [.status(404, body: page)]) { _, url in
            // setup
            let webhook = try transport(url)

            // act
            let results = await webhook.deliver(.sample())
            await webhook.shutdown()

            // check
            let result = try #require(results.first)
            #expect(results.count == 1 && result.outcome == .failed && result.httpStatus == 404)
            let expectedStart = "the webhook refused the message with 404 Not Found: <h1>Not Found</h1> xxx"
            #expect(result.reason.hasPrefix(expectedStart), "\(result.reason)")
            #expect(result.reason.hasSuffix("…; check the webhook URL and the receiver's log"))
            #expect(!result.reason.contains("\n") && !result.reason.contains("\t"))
            #expect(result.reason.count < expectedStart.count + 250)
        }
    }

    @Test("a receiver that does not answer in time is tried again later, after the timeout, not its answer")
    func hangingIsRetry() async throws {
        try await WebhookReceiver.run(secret: secret, answers: [.hang(.seconds(4))]) { _, url in
            // setup
            let webhook = try transport(url, timeout: .milliseconds(500))
            let clock = ContinuousClock()

            // act
            let started = clock.now
            let results = await webhook.deliver(.sample())
            let waited = clock.now - started
            await webhook.shutdown()

            // check
            #expect(results == [DeliveryResult(outcome: .retry, reason: "the webhook at 127.0.0.1 did not answer within 0.5 s")])
            #expect(waited < .seconds(3), "gave up at the timeout: \(waited)")
        }
    }

    @Test("a receiver that is not running is tried again later")
    func refusedConnectionIsRetry() async throws {
        // setup: a port nobody listens on
        let webhook = try transport("http://127.0.0.1:\(try FreePort.find())/hooks")

        // act
        let results = await webhook.deliver(.sample())
        await webhook.shutdown()

        // check
        #expect(
            results == [
                DeliveryResult(outcome: .retry, reason: "the webhook at 127.0.0.1 refused the connection (is the receiver running?)")
            ])
    }

    @Test("the same message sent twice (a retry) carries the same Idempotency-Key and body")
    func retryKeepsIdempotencyKey() async throws {
        try await WebhookReceiver.run(secret: secret, answers: [.status(503), .status(200)]) { receiver, url in
            // setup
            let webhook = try transport(url)
            let delivery = OutboxDelivery.sample()

            // act
            let first = await webhook.deliver(delivery)
            let second = await webhook.deliver(delivery)
            await webhook.shutdown()

            // check
            #expect(first.first?.outcome == .retry && second.first?.outcome == .delivered)
            let received = await receiver.received
            #expect(received.map(\.idempotencyKey) == [delivery.message.id, delivery.message.id])
            #expect(received[0].body == received[1].body)
            #expect(received.allSatisfy { $0.refusal == nil })
        }
    }
}
