import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import Sandbox
import ServiceLifecycle

/// An APNs stand-in on a loopback port with a fresh demo key and certificate, for tests that
/// push over real HTTP/2 and TLS.
public struct APNsStandInFixture: Sendable {
    public static let topic = "org.bookcorners.app"

    public let standIn: APNsStandIn
    public let port: Int
    /// The console's `.p8` key the stand-in trusts, with its key id and team id.
    public let key: APNsDemoKey
    /// The stand-in's certificate (PEM): the CA file to give the console.
    public let certificatePath: String
    public var baseURL: URL { URL(string: "https://localhost:\(port)")! }

    /// Runs a stand-in around `body`, then stops it.
    public static func run<Result: Sendable>(
        topic: String = APNsStandInFixture.topic, now: @escaping @Sendable () -> Date = Date.init, _ body: (APNsStandInFixture) async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try APNsDemoKey.create(at: directory.path("AuthKey.p8"))
        let certificatePath = directory.path("apns-stand-in.pem")
        var logger = Logger(label: "apns-stand-in-test")
        logger.logLevel = .warning
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let standIn = try APNsStandIn(
            configuration: APNsStandInConfiguration(
                certificatePath: certificatePath, providerPublicKeyPEM: key.publicKeyPEM, teamID: key.teamID, keyID: key.keyID,
                topic: topic),
            logger: logger, now: now, onServerRunning: { continuation.yield($0) })
        var configuration = ServiceGroupConfiguration(services: [.init(service: standIn)], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(15)
        let group = ServiceGroup(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { continuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await tasks.waitForAll()
                throw TestServerError.didNotStart(nil)
            }
            let fixture = APNsStandInFixture(standIn: standIn, port: port, key: key, certificatePath: certificatePath)
            do {
                let result = try await body(fixture)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }

    /// A provider JWT as the console makes them, signed with `key` (the fixture's by default).
    public func providerToken(
        issuedAt: Date = Date(), keyID: String? = nil, teamID: String? = nil, signingKey: P256.Signing.PrivateKey? = nil
    ) throws -> String {
        let key = try signingKey ?? P256.Signing.PrivateKey(pemRepresentation: String(contentsOfFile: self.key.keyPath, encoding: .utf8))
        func encode(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = encode(Data(#"{"alg":"ES256","kid":"\#(keyID ?? self.key.keyID)"}"#.utf8))
        let claims = encode(Data(#"{"iss":"\#(teamID ?? self.key.teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#.utf8))
        let signature = try key.signature(for: Data("\(header).\(claims)".utf8)).rawRepresentation
        return "\(header).\(claims).\(encode(signature))"
    }

    /// The headers a well-formed push carries, with a fresh provider token.
    public func validHeaders(issuedAt: Date = Date()) throws -> [(String, String)] {
        [
            ("authorization", "bearer \(try providerToken(issuedAt: issuedAt))"), ("apns-topic", Self.topic), ("apns-push-type", "alert"),
            ("apns-id", UUID().uuidString.lowercased()), ("apns-priority", "10"),
        ]
    }

    /// One raw exchange with the stand-in over TLS, trusting its certificate.
    public func raw(_ method: HTTPMethod, _ path: String, headers: [(String, String)], body: [UInt8]? = nil) async throws -> RawAnswer {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(certificatePath)]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        var request = HTTPClientRequest(url: baseURL.absoluteString + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 1024 * 1024)
            try await client.shutdown()
            return RawAnswer(
                status: Int(response.status.code), headers: response.headers.map { ($0.name.lowercased(), $0.value) },
                body: Data(bytes.readableBytesView))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}
