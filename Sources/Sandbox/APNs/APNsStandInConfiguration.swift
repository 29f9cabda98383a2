import Crypto
import Foundation

/// Where the APNs stand-in listens and what it accepts: the provider key, team and topic the
/// console is configured with, as Apple would know them.
public struct APNsStandInConfiguration: Sendable {
    public var host: String
    /// 0 asks for any free port; `onServerRunning` learns the one bound.
    public var port: Int
    /// Where the self-signed certificate (PEM) is written: the console's CA file.
    public var certificatePath: String
    /// The public half of the console's `.p8` key (PEM), which every JWT must verify with.
    public var providerPublicKeyPEM: String
    public var teamID: String
    public var keyID: String
    /// The bundle id pushes must name in `apns-topic`.
    public var topic: String
    /// How many received pushes are kept for the page and the tests.
    public var keptPushes: Int

    public init(
        host: String = "127.0.0.1", port: Int = 0, certificatePath: String, providerPublicKey: P256.Signing.PublicKey,
        teamID: String, keyID: String, topic: String, keptPushes: Int = 500
    ) {
        self.host = host
        self.port = port
        self.certificatePath = certificatePath
        self.providerPublicKeyPEM = providerPublicKey.pemRepresentation
        self.teamID = teamID
        self.keyID = keyID
        self.topic = topic
        self.keptPushes = keptPushes
    }

    /// The same, with the public key as PEM (`-----BEGIN PUBLIC KEY-----`); checked when the stand-in starts.
    public init(
        host: String = "127.0.0.1", port: Int = 0, certificatePath: String, providerPublicKeyPEM: String,
        teamID: String, keyID: String, topic: String, keptPushes: Int = 500
    ) {
        self.host = host
        self.port = port
        self.certificatePath = certificatePath
        self.providerPublicKeyPEM = providerPublicKeyPEM
        self.teamID = teamID
        self.keyID = keyID
        self.topic = topic
        self.keptPushes = keptPushes
    }
}
