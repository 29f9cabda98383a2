import Crypto
import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import ServiceLifecycle

/// An imitation of Apple's provider API for the sandbox, the demo and the tests: HTTP/2 over
/// TLS with a certificate of its own, Apple's checks and answers, faults on demand, and a log
/// of what it received. Run it as a service; `onServerRunning` learns the bound port.
public final class APNsStandIn: Service {
    public let configuration: APNsStandInConfiguration
    /// Faults to switch on while it runs.
    public let faults = APNsFaults()
    /// What it received.
    public let log: APNsPushLog
    private let application: Application<APNsStandInResponder>

    /// Makes the certificate and writes it to `configuration.certificatePath` now (or reuses the
    /// one kept there with its key, so a console told to trust it still does after a restart), so the console
    /// can be given the file before the stand-in answers. `now` is the clock tokens age by.
    public init(
        configuration: APNsStandInConfiguration, logger: Logger = Logger(label: "apns-stand-in"),
        now: @escaping @Sendable () -> Date = Date.init,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        let certificate = try APNsStandInCertificate.loadOrMake(certificatePath: configuration.certificatePath)
        self.configuration = configuration
        self.log = APNsPushLog(capacity: configuration.keptPushes)
        let responder = APNsStandInResponder(
            verifier: APNsProviderTokenVerifier(
                publicKey: try P256.Signing.PublicKey(pemRepresentation: configuration.providerPublicKeyPEM),
                keyID: configuration.keyID, teamID: configuration.teamID),
            topic: configuration.topic, faults: faults, log: log, now: now)
        self.application = Application(
            responder: responder,
            server: try .http2Upgrade(tlsConfiguration: certificate.serverConfiguration),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "APNsStandIn"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    public func run() async throws {
        try await application.run()
    }
}
