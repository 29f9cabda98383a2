import AsyncHTTPClient
import Foundation
import Logging
import ModerationStore
import NIOCore
import NIOHTTP1
import NIOSSL

/// Delivers outbox messages through Apple's provider API: one HTTP/2 connection per APNs host
/// (AsyncHTTPClient multiplexes every push over it), token-based authentication, certificate
/// verification always on.
public final class APNsTransport: OutboxTransport {
    public let name = "apns"

    private let configuration: APNsConfiguration
    private let providerToken: APNsProviderToken
    private let client: HTTPClient
    private let logger: Logger
    /// The largest APNs error body read; theirs are a few dozen bytes.
    private static let maxAnswerBytes = 64 * 1024

    /// Reads the signing key and the CA file now, so a bad setting stops start-up with its name.
    public convenience init(
        configuration: APNsConfiguration, logger: Logger = Logger(label: "apns"), now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        let key = try configuration.loadSigningKey()
        try self.init(
            configuration: configuration,
            providerToken: APNsProviderToken(key: key, keyID: configuration.keyID, teamID: configuration.teamID, now: now),
            logger: logger)
    }

    /// With a provider token made elsewhere (tests drive its clock).
    public init(configuration: APNsConfiguration, providerToken: APNsProviderToken, logger: Logger = Logger(label: "apns")) throws {
        for (name, value) in [("key id", configuration.keyID), ("team id", configuration.teamID), ("topic", configuration.topic)]
        where value.isEmpty {
            throw APNsConfigurationError.emptySetting(name: name)
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        // Verification stays on: a private CA is trusted by adding it, never by turning checks off.
        tls.certificateVerification = .fullVerification
        if let caFilePath = configuration.caFilePath {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFilePath)
            } catch {
                throw APNsConfigurationError.caFileInvalid(path: caFilePath)
            }
            guard !certificates.isEmpty else { throw APNsConfigurationError.caFileInvalid(path: caFilePath) }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        var clientConfiguration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        // HTTP/2 is chosen by ALPN, as APNs requires.
        clientConfiguration.httpVersion = .automatic
        clientConfiguration.timeout = .init(connect: .init(configuration.requestTimeout))
        // The outbox tries a message again on its own schedule; retrying a refused handshake here
        // until the deadline would only hide why it failed (a loaded machine then saw "did not
        // answer in time" instead of the untrusted certificate).
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        self.configuration = configuration
        self.providerToken = providerToken
        self.logger = logger
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    /// Sends to every device at once; one result per device, in the order given.
    public func deliver(_ delivery: OutboxDelivery) async -> [DeliveryResult] {
        await withTaskGroup(of: (Int, DeliveryResult).self) { group in
            for (index, device) in delivery.devices.enumerated() {
                group.addTask { (index, await self.send(delivery, to: device)) }
            }
            var results = [DeliveryResult?](repeating: nil, count: delivery.devices.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    public func shutdown() async {
        // Only fails when already shut down, which leaves nothing to do.
        try? await client.shutdown()
    }

    private func send(_ delivery: OutboxDelivery, to device: Device) async -> DeliveryResult {
        let jwt: String
        do {
            jwt = try providerToken.current()
        } catch {
            logger.error("APNs provider token not signed", metadata: ["error": "\(error)"])
            return DeliveryResult(
                deviceToken: device.token, outcome: .retry,
                reason: "The APNs provider token could not be signed with the configured key; check the APNs key file.")
        }
        let first = await post(delivery, to: device, jwt: jwt)
        guard case .answer(let answer) = first, answer.isExpiredProviderToken else { return first.result(for: device.token) }
        let renewed: String
        do {
            renewed = try providerToken.renew(after: jwt)
        } catch {
            logger.error("APNs provider token not renewed", metadata: ["error": "\(error)"])
            return answer.result(for: device.token)
        }
        // Renewed less than 20 minutes ago (APNs would refuse a faster change): wait instead.
        guard renewed != jwt else { return answer.result(for: device.token) }
        return await post(delivery, to: device, jwt: renewed).result(for: device.token)
    }

    private func post(_ delivery: OutboxDelivery, to device: Device, jwt: String) async -> Exchange {
        let url = configuration.baseURL(for: device.environment).appendingPathComponent("3/device/\(device.token)")
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(jwt)")
        request.headers.add(name: "content-type", value: "application/json")
        for (name, value) in delivery.headers.sorted(by: { $0.key < $1.key }) where name.lowercased().hasPrefix("apns-") {
            request.headers.add(name: name.lowercased(), value: value)
        }
        if request.headers["apns-topic"].isEmpty { request.headers.add(name: "apns-topic", value: configuration.topic) }
        request.body = .bytes(ByteBuffer(string: delivery.message.payload))
        do {
            let response = try await client.execute(request, timeout: .init(configuration.requestTimeout))
            let body = try await response.body.collect(upTo: Self.maxAnswerBytes)
            return .answer(
                APNsAnswer(
                    status: Int(response.status.code), body: Data(body.readableBytesView),
                    retryAfterHeader: response.headers.first(name: "retry-after")))
        } catch {
            logger.warning(
                "APNs push not answered",
                metadata: ["outbox.message": "\(delivery.message.id)", "apns.host": "\(url.host ?? "")", "error": "\(error)"])
            return .unreachable(Self.words(for: error, host: url.host ?? url.absoluteString))
        }
    }

    /// A connection problem in words; the error's own text stays in the logs, not on pages.
    private static func words(for error: any Error, host: String) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .connectTimeout || error == .readTimeout {
            return "APNs at \(host) did not answer in time."
        }
        if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            return
                "The TLS connection to APNs at \(host) failed (its certificate was not trusted or the handshake broke); check the APNs URLs and CA file."
        }
        return "APNs at \(host) could not be reached."
    }

    /// One POST's end: an answer from APNs, or none.
    private enum Exchange {
        case answer(APNsAnswer)
        case unreachable(String)

        func result(for deviceToken: String) -> DeliveryResult {
            switch self {
            case .answer(let answer): answer.result(for: deviceToken)
            case .unreachable(let words): DeliveryResult(deviceToken: deviceToken, outcome: .retry, reason: words)
            }
        }
    }
}
