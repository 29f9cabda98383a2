import Crypto
import Foundation
import ModerationStore

/// How the console reaches Apple's provider API: the team's signing key and where to send.
public struct APNsConfiguration: Sendable {
    /// The team's `.p8` signing key (PKCS#8 PEM), as Apple hands it out.
    public var keyPath: String
    /// The key's 10-character id, sent as the JWT's `kid`.
    public var keyID: String
    /// The Apple developer team id, sent as the JWT's `iss`.
    public var teamID: String
    /// The app's bundle id: the `apns-topic` used when a message carries none.
    public var topic: String
    /// Where tokens from App Store builds go.
    public var productionURL: URL
    /// Where tokens from Xcode builds go.
    public var sandboxURL: URL
    /// A PEM file of certificates trusted on top of the system's roots (the sandbox stand-in's).
    public var caFilePath: String?
    /// The longest one push may take, connecting included.
    public var requestTimeout: Duration

    public static let defaultProductionURL = URL(string: "https://api.push.apple.com")!
    public static let defaultSandboxURL = URL(string: "https://api.sandbox.push.apple.com")!

    public init(
        keyPath: String, keyID: String, teamID: String, topic: String,
        productionURL: URL = APNsConfiguration.defaultProductionURL,
        sandboxURL: URL = APNsConfiguration.defaultSandboxURL,
        caFilePath: String? = nil, requestTimeout: Duration = .seconds(10)
    ) {
        self.keyPath = keyPath
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.caFilePath = caFilePath
        self.requestTimeout = requestTimeout
    }

    /// Reads the signing key, saying which file is missing, unreadable or not a P-256 key.
    public func loadSigningKey() throws(APNsConfigurationError) -> P256.Signing.PrivateKey {
        guard FileManager.default.fileExists(atPath: keyPath) else { throw .keyMissing(path: keyPath) }
        let text: String
        do {
            text = try String(contentsOfFile: keyPath, encoding: .utf8)
        } catch {
            throw .keyUnreadable(path: keyPath)
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: text)
        } catch {
            throw .keyInvalid(path: keyPath)
        }
    }

    /// The host a device's token belongs to.
    func baseURL(for environment: Device.Environment) -> URL {
        switch environment {
        case .production: productionURL
        case .sandbox: sandboxURL
        }
    }
}
