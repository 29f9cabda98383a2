import Crypto
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Sandbox

@Suite("APNs stand-in: Apple's checks, answers and faults over HTTP/2 and TLS", .timeLimit(.minutes(3)))
struct APNsStandInTests {
    private static let token = String(repeating: "0123456789abcdef", count: 4)
    private static let payload = Array(#"{"aps":{"alert":{"title":"t","body":"b"}}}"#.utf8)

    /// The fixture's valid headers with `name` replaced (or removed when `value` is nil).
    private static func headers(_ apns: APNsStandInFixture, _ name: String, _ value: String?) throws -> [(String, String)] {
        var headers = try apns.validHeaders().filter { $0.0 != name }
        if let value { headers.append((name, value)) }
        return headers
    }

    private static func reason(_ answer: RawAnswer) -> String? {
        (try? answer.jsonObject())?["reason"] as? String
    }

    @Test("a well-formed push is answered 200 with its apns-id and kept")
    func accepted() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let headers = try apns.validHeaders()
            let apnsID = try #require(headers.first { $0.0 == "apns-id" }?.1)

            // act
            let answer = try await apns.raw(.POST, "/3/device/\(Self.token)", headers: headers, body: Self.payload)

            // check
            #expect(answer.status == 200)
            #expect(answer.header("apns-id") == apnsID)
            let push = try #require(await apns.standIn.log.pushes().first)
            #expect(push.deviceToken == Self.token)
            #expect(push.payload == String(decoding: Self.payload, as: UTF8.self))
            #expect(push.headers["authorization"] == nil, "the provider token is not kept")
            #expect(push.status == 200)
        }
    }

    @Test("provider tokens: missing, wrong key, wrong kid or iss, older than an hour")
    func providerTokens() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let path = "/3/device/\(Self.token)"
            let cases: [(String?, Int, String)] = [
                (nil, 403, "MissingProviderToken"),
                ("bearer " + (try apns.providerToken(signingKey: P256.Signing.PrivateKey())), 403, "InvalidProviderToken"),
                ("bearer " + (try apns.providerToken(keyID: "OTHERKEYID")), 403, "InvalidProviderToken"),
                ("bearer " + (try apns.providerToken(teamID: "OTHERTEAM1")), 403, "InvalidProviderToken"),
                ("bearer not.a.jwt", 403, "InvalidProviderToken"),
                ("bearer " + (try apns.providerToken(issuedAt: Date().addingTimeInterval(-3700))), 403, "ExpiredProviderToken"),
            ]

            for (authorization, status, reason) in cases {
                // act
                let answer = try await apns.raw(.POST, path, headers: try Self.headers(apns, "authorization", authorization), body: Self.payload)

                // check
                #expect(answer.status == status, "\(reason)")
                #expect(Self.reason(answer) == reason)
            }
        }
    }

    @Test("a provider token already verified still expires an hour after its iat")
    func verifiedTokenAges() async throws {
        // setup: the stand-in's clock, moved by hand
        let clock = Mutex(Date())
        try await APNsStandInFixture.run(now: { clock.withLock { $0 } }) { apns in
            // Issued at the stand-in's time, not the moment the test got here (seconds later under load).
            let headers = try apns.validHeaders(issuedAt: clock.withLock { $0 })
            let path = "/3/device/\(Self.token)"
            let fresh = try await apns.raw(.POST, path, headers: headers, body: Self.payload)

            // act
            clock.withLock { $0 += 3601 }
            let later = try await apns.raw(.POST, path, headers: headers, body: Self.payload)

            // check
            #expect(fresh.status == 200)
            #expect(later.status == 403)
            #expect(Self.reason(later) == "ExpiredProviderToken")
        }
    }

    @Test("headers, device token and payload are checked as Apple does")
    func requestChecks() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let good = "/3/device/\(Self.token)"
            let cases: [(String, [(String, String)], [UInt8], Int, String)] = [
                (good, try Self.headers(apns, "apns-topic", nil), Self.payload, 400, "MissingTopic"),
                (good, try Self.headers(apns, "apns-topic", "org.example.other"), Self.payload, 400, "TopicDisallowed"),
                (good, try Self.headers(apns, "apns-push-type", "shout"), Self.payload, 400, "InvalidPushType"),
                (good, try Self.headers(apns, "apns-id", "message-1"), Self.payload, 400, "BadMessageId"),
                (good, try Self.headers(apns, "apns-priority", "7"), Self.payload, 400, "BadPriority"),
                ("/3/device/abc123", try apns.validHeaders(), Self.payload, 400, "BadDeviceToken"),
                (good, try apns.validHeaders(), [], 400, "PayloadEmpty"),
                (good, try apns.validHeaders(), Array("not json".utf8), 400, "BadPayload"),
                (good, try apns.validHeaders(), Array(repeating: UInt8(ascii: " "), count: 4097), 413, "PayloadTooLarge"),
                ("/4/device/\(Self.token)", try apns.validHeaders(), Self.payload, 404, "BadPath"),
            ]

            for (path, headers, body, status, reason) in cases {
                // act
                let answer = try await apns.raw(.POST, path, headers: headers, body: body)

                // check
                #expect(answer.status == status, "\(reason)")
                #expect(Self.reason(answer) == reason)
            }
            // A payload of exactly 4096 bytes is still accepted.
            let padded = Self.payload + Array(repeating: UInt8(ascii: " "), count: 4096 - Self.payload.count)
            let exact = try await apns.raw(.POST, good, headers: try apns.validHeaders(), body: padded)
            #expect(exact.status == 200)
        }
    }

    @Test("faults: 410 with a timestamp for an unregistered token, counted 429, 503 and ExpiredProviderToken")
    func faults() async throws {
        try await APNsStandInFixture.run { apns in
            // setup
            let path = "/3/device/\(Self.token)"
            await apns.standIn.faults.apply(
                APNsFaultSettings(unregistered: [Self.token.uppercased()], tooManyRequests: 1, unavailable: 1, expireProviderToken: 1))

            // act
            var answers: [RawAnswer] = []
            for _ in 0..<4 { answers.append(try await apns.raw(.POST, path, headers: try apns.validHeaders(), body: Self.payload)) }
            await apns.standIn.faults.clear()
            let cleared = try await apns.raw(.POST, path, headers: try apns.validHeaders(), body: Self.payload)

            // check
            #expect(answers.map(\.status) == [503, 403, 429, 410])
            #expect(answers.map { Self.reason($0) } == ["ServiceUnavailable", "ExpiredProviderToken", "TooManyRequests", "Unregistered"])
            let timestamp = try #require(try answers[3].jsonObject()?["timestamp"] as? Int)
            #expect(abs(Double(timestamp) / 1000 - Date().timeIntervalSince1970) < 60, "milliseconds since 1970")
            #expect(cleared.status == 200)
            #expect(await apns.standIn.log.total == 5)
            #expect(await apns.standIn.log.pushes().map(\.status) == [200, 410, 429, 403, 503], "newest first")
        }
    }

    @Test("the kept pushes are capped, newest first, while the total counts them all")
    func cappedLog() async {
        // setup
        let log = APNsPushLog(capacity: 3)

        // act
        for index in 1...5 {
            await log.append(
                APNsReceivedPush(
                    deviceToken: "\(index)", authority: "localhost", headers: [:], payload: "{}", receivedAt: Date(), status: 200, reason: "",
                    httpVersion: "HTTP/2"),
                connection: ObjectIdentifier(log))
        }

        // check
        #expect(await log.pushes().map(\.deviceToken) == ["5", "4", "3"])
        #expect(await log.total == 5)
    }
}

@Suite("APNs stand-in certificate across restarts")
struct APNsStandInCertificateTests {
    @Test("a restarted stand-in serves the certificate it kept, so a console told to trust it still does; its key is owner-only")
    func keptAcrossRestarts() throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let files = try APNsStandInFiles.prepare(in: directory.path("apns"))
        func start() throws -> APNsStandIn {
            try APNsStandIn(
                configuration: APNsStandInConfiguration(
                    certificatePath: files.certificatePath, providerPublicKeyPEM: files.key.publicKeyPEM, teamID: files.key.teamID,
                    keyID: files.key.keyID, topic: "org.bookcorners.app"))
        }
        // act: two starts on one directory
        _ = try start()
        let first = try String(contentsOfFile: files.certificatePath, encoding: .utf8)
        _ = try start()
        let second = try String(contentsOfFile: files.certificatePath, encoding: .utf8)
        // check
        #expect(first == second)
        #expect(first.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: files.certificatePath + ".key")[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0)
        // the demo key is kept too: the same ids on the next start
        let again = try APNsStandInFiles.prepare(in: directory.path("apns"))
        #expect(again.key.keyID == files.key.keyID && again.key.publicKeyPEM == files.key.publicKeyPEM)
    }
}
