import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("APNs transport against the stand-in over HTTP/2 and TLS", .timeLimit(.minutes(3)))
struct APNsTransportTests {
    @Test("a push is delivered over HTTP/2 with the stored headers, a valid JWT and the payload")
    func delivered() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let transport = try apns.transport()
            let delivery = APNsTestMessage.delivery(to: [APNsTestMessage.token(1)])

            // act
            let results = await transport.deliver(delivery)
            await transport.shutdown()

            // check
            #expect(results == [DeliveryResult(deviceToken: APNsTestMessage.token(1), outcome: .delivered, httpStatus: 200)])
            let pushes = await apns.standIn.log.pushes()
            let push = try #require(pushes.first)
            #expect(pushes.count == 1)
            #expect(push.httpVersion == "HTTP/2")
            #expect(push.status == 200)
            #expect(push.deviceToken == APNsTestMessage.token(1))
            #expect(push.headers["apns-id"] == delivery.message.id)
            #expect(push.headers["apns-topic"] == APNsStandInFixture.topic)
            #expect(push.headers["apns-push-type"] == "alert")
            #expect(push.payload == delivery.message.payload)
        }
    }

    @Test("every device of a message is tried, each with its own result")
    func severalDevices() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let transport = try apns.transport()
            let tokens = (1...5).map(APNsTestMessage.token)
            await apns.standIn.faults.apply(.init(unregistered: [tokens[2]]))

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: tokens))
            await transport.shutdown()

            // check
            #expect(results.map(\.deviceToken) == tokens)
            #expect(results.map(\.outcome) == [.delivered, .delivered, .deviceDisabled, .delivered, .delivered])
            #expect(await apns.standIn.log.total == 5)
        }
    }

    @Test("many pushes at once share one HTTP/2 connection")
    func multiplexed() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let transport = try apns.transport()
            let deliveries = (0..<20).map { message in
                APNsTestMessage.delivery(to: (0..<25).map { APNsTestMessage.token(message * 100 + $0) })
            }

            // act
            let outcomes = await withTaskGroup(of: [OutboxAttempt.Outcome].self) { group in
                for delivery in deliveries { group.addTask { await transport.deliver(delivery).map(\.outcome) } }
                return await group.reduce(into: []) { $0 += $1 }
            }
            await transport.shutdown()

            // check
            #expect(outcomes.count == 500)
            #expect(outcomes.allSatisfy { $0 == .delivered })
            #expect(await apns.standIn.log.total == 500)
            #expect(await apns.standIn.log.connectionCount == 1)
        }
    }

    @Test("410 Unregistered disables the device and is not retried")
    func unregistered() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let transport = try apns.transport()
            let token = APNsTestMessage.token(2)
            await apns.standIn.faults.apply(.init(unregistered: [token]))

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: [token]))
            await transport.shutdown()

            // check
            let result = try #require(results.first)
            #expect(result.outcome == .deviceDisabled)
            #expect(result.httpStatus == 410)
            #expect(result.reason.contains("Unregistered"))
            #expect(await apns.standIn.log.total == 1)
        }
    }

    @Test("400 BadDeviceToken disables the device")
    func badDeviceToken() async throws {
        try await APNsStandInFixture.run { apns in
            // setup: 64 characters, but not hexadecimal
            let transport = try apns.transport()
            let token = String(repeating: "zz", count: 32)

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: [token]))
            await transport.shutdown()

            // check
            let result = try #require(results.first)
            #expect(result.outcome == .deviceDisabled)
            #expect(result.httpStatus == 400)
            #expect(result.reason.contains("BadDeviceToken"))
        }
    }

    @Test("429 and 503 are tried again later, with APNs' reason")
    func backOff() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let transport = try apns.transport()
            await apns.standIn.faults.apply(.init(tooManyRequests: 1))

            // act
            let throttled = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(3)]))
            await apns.standIn.faults.apply(.init(unavailable: 1))
            let unavailable = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(3)]))
            let afterwards = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(3)]))
            await transport.shutdown()

            // check
            #expect(throttled.map(\.outcome) == [.retry])
            #expect(throttled.first?.httpStatus == 429)
            #expect(throttled.first?.reason.contains("TooManyRequests") == true)
            #expect(unavailable.map(\.outcome) == [.retry])
            #expect(unavailable.first?.httpStatus == 503)
            #expect(unavailable.first?.reason.contains("ServiceUnavailable") == true)
            #expect(afterwards.map(\.outcome) == [.delivered])
        }
    }

    @Test("a payload over 4096 bytes fails the message with PayloadTooLarge")
    func payloadTooLarge() async throws {
        try await APNsStandInFixture.run { apns in
            // setup: a message whose stored payload is over the limit (the outbox cuts them, but
            // the transport must still say what APNs answered)
            let transport = try apns.transport()
            var delivery = APNsTestMessage.delivery(to: [APNsTestMessage.token(4)])
            var message = delivery.message
            message.payload = #"{"aps":{"alert":{"title":"x","body":""# + String(repeating: "a", count: 5000) + #""}}}"#
            delivery = OutboxDelivery(message: message, headers: delivery.headers, devices: delivery.devices)

            // act
            let results = await transport.deliver(delivery)
            await transport.shutdown()

            // check
            let result = try #require(results.first)
            #expect(result.outcome == .failed)
            #expect(result.httpStatus == 413)
            #expect(result.reason.contains("PayloadTooLarge"))
        }
    }

    @Test("a topic the key may not send to fails with TopicDisallowed")
    func topicDisallowed() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let transport = try apns.transport()

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(5)], topic: "org.example.other"))
            await transport.shutdown()

            // check
            let result = try #require(results.first)
            #expect(result.outcome == .failed)
            #expect(result.httpStatus == 400)
            #expect(result.reason.contains("TopicDisallowed"))
        }
    }

    @Test("ExpiredProviderToken renews the JWT once and the push is delivered")
    func expiredProviderTokenRenews() async throws {
        try await APNsStandInFixture.run { apns in
            // setup: a token made 30 minutes ago (still reused), which APNs now calls expired
            let clock = MovableWallClock(Date().addingTimeInterval(-30 * 60))
            let transport = try apns.transport(clock: clock)
            let first = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(6)]))
            clock.advance(by: 30 * 60)
            await apns.standIn.faults.apply(.init(expireProviderToken: 1))

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(6)]))
            await transport.shutdown()

            // check
            #expect(first.map(\.outcome) == [.delivered])
            #expect(results.map(\.outcome) == [.delivered])
            let pushes = await apns.standIn.log.pushes()
            #expect(pushes.map(\.status) == [200, 403, 200])
            #expect(pushes[1].reason == "ExpiredProviderToken")
        }
    }

    @Test("ExpiredProviderToken for a token under 20 minutes old is not renewed: tried again later")
    func expiredProviderTokenTooSoon() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let transport = try apns.transport()
            await apns.standIn.faults.apply(.init(expireProviderToken: 1))

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(7)]))
            await transport.shutdown()

            // check
            let result = try #require(results.first)
            #expect(result.outcome == .retry)
            #expect(result.reason.contains("ExpiredProviderToken"))
            #expect(await apns.standIn.log.total == 1)
        }
    }

    @Test("without the CA file the stand-in's certificate is refused: nothing delivered, tried again later")
    func untrustedCertificate() async throws {
        try await APNsStandInFixture.run { apns in
            // setup: a timeout long enough that only a refused handshake, not a slow one, answers first
            var configuration = apns.consoleConfiguration(trustingCertificate: false)
            configuration.requestTimeout = .seconds(30)
            let transport = try APNsTransport(configuration: configuration)

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(8)]))
            await transport.shutdown()

            // check
            let result = try #require(results.first)
            #expect(result.outcome == .retry)
            #expect(result.httpStatus == nil)
            #expect(result.reason.contains("TLS"))
            #expect(await apns.standIn.log.total == 0)
        }
    }

    @Test("an APNs that cannot be reached is tried again later, in words")
    func unreachable() async throws {
        // setup: a loopback port nobody listens on
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try APNsDemoKey.create(at: directory.path("AuthKey.p8"))
        let url = try #require(URL(string: "https://127.0.0.1:\(try FreePort.find())"))
        let transport = try APNsTransport(
            configuration: APNsConfiguration(
                keyPath: key.keyPath, keyID: key.keyID, teamID: key.teamID, topic: APNsStandInFixture.topic, productionURL: url,
                sandboxURL: url, requestTimeout: .seconds(2)))

        // act
        let results = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(10)]))
        await transport.shutdown()

        // check
        let result = try #require(results.first)
        #expect(result.outcome == .retry)
        #expect(result.httpStatus == nil)
        #expect(result.reason.contains("127.0.0.1"))
        #expect(result.reason == "APNs at 127.0.0.1 could not be reached.", "\(result.reason)")
    }

    @Test("a CA file that holds no certificate stops the transport from starting, naming the file")
    func badCAFile() throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try APNsDemoKey.create(at: directory.path("AuthKey.p8"))
        let caFile = directory.path("ca.pem")
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: caFile))

        // act / check
        #expect(throws: APNsConfigurationError.caFileInvalid(path: caFile)) {
            try APNsTransport(
                configuration: APNsConfiguration(
                    keyPath: key.keyPath, keyID: key.keyID, teamID: key.teamID, topic: APNsStandInFixture.topic, caFilePath: caFile))
        }
    }

    @Test("environments pick their host: production and sandbox tokens go to their own URL")
    func environments() async throws {
        try await APNsStandInFixture.run { apns in
            // setup: the two hosts are the stand-in under two names
            var configuration = apns.consoleConfiguration()
            configuration.productionURL = try #require(URL(string: "https://localhost:\(apns.port)"))
            configuration.sandboxURL = try #require(URL(string: "https://127.0.0.1:\(apns.port)"))
            let transport = try APNsTransport(configuration: configuration)

            // act
            let production = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(11)], environment: .production))
            let sandbox = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(12)], environment: .sandbox))
            await transport.shutdown()

            // check
            #expect(production.map(\.outcome) == [.delivered])
            #expect(sandbox.map(\.outcome) == [.delivered])
            let pushes = await apns.standIn.log.pushes()
            #expect(pushes.map(\.deviceToken) == [APNsTestMessage.token(12), APNsTestMessage.token(11)])
            #expect(pushes.map(\.authority) == ["127.0.0.1:\(apns.port)", "localhost:\(apns.port)"])
        }
    }

    @Test("a slow APNs answer past the request timeout is tried again later, in words")
    func slowAnswer() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            var configuration = apns.consoleConfiguration()
            configuration.requestTimeout = .milliseconds(300)
            let transport = try APNsTransport(configuration: configuration)
            await apns.standIn.faults.apply(.init(delayMilliseconds: 2000))

            // act
            let results = await transport.deliver(APNsTestMessage.delivery(to: [APNsTestMessage.token(9)]))
            await transport.shutdown()

            // check
            let result = try #require(results.first)
            #expect(result.outcome == .retry)
            #expect(result.reason.contains("did not answer in time"))
        }
    }
}
