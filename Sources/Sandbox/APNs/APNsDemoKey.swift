import Crypto
import Foundation

/// A made-up APNs signing key for the demo and tests: a `.p8` file as Apple hands them out,
/// with the ids that go with it and the public half the stand-in checks JWTs with.
public struct APNsDemoKey: Sendable {
    public let keyPath: String
    /// 10 characters, as Apple's key ids.
    public let keyID: String
    /// 10 characters, as Apple's team ids.
    public let teamID: String
    /// The public half (PEM), which the stand-in checks JWTs with.
    public let publicKeyPEM: String

    /// The public half as a key.
    public func publicKey() throws -> P256.Signing.PublicKey {
        try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)
    }

    /// Writes a fresh P-256 key to `path` (PKCS#8 PEM, mode 0600: it signs as the team).
    public static func create(at path: String) throws -> APNsDemoKey {
        let key = P256.Signing.PrivateKey()
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Created empty with owner-only permissions before the key goes in, so it is never readable by others.
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data((key.pemRepresentation + "\n").utf8))
        return APNsDemoKey(keyPath: path, keyID: randomID(), teamID: randomID(), publicKeyPEM: key.publicKey.pemRepresentation)
    }

    private static func randomID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<10).map { _ in alphabet.randomElement() ?? "A" })
    }
}
