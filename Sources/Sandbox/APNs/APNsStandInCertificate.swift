import Crypto
import Foundation
import NIOSSL
import X509

/// The stand-in's TLS identity: a self-signed P-256 certificate for `localhost` and
/// `127.0.0.1`, made at start. It is its own CA, so the console trusts it by a CA file.
struct APNsStandInCertificate: Sendable {
    /// What the console's CA file holds.
    let pem: String
    /// The certificate's key, kept beside it so a restart serves the same certificate.
    let keyPEM: String
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey

    /// The certificate kept at `certificatePath` with its key (`<path>.key`) while it has a month
    /// left; else a fresh one, written there (the key owner-only).
    static func loadOrMake(certificatePath: String, now: Date = Date()) throws -> APNsStandInCertificate {
        let keyPath = certificatePath + ".key"
        if let pem = try? String(contentsOfFile: certificatePath, encoding: .utf8),
            let keyPEM = try? String(contentsOfFile: keyPath, encoding: .utf8),
            let kept = try? Certificate(pemEncoded: pem), kept.notValidAfter > now.addingTimeInterval(30 * 86_400),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: keyPEM), kept.publicKey == Certificate.PublicKey(key.publicKey)
        {
            return try APNsStandInCertificate(pem: pem, key: key)
        }
        let made = try make(now: now)
        let url = URL(fileURLWithPath: certificatePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: keyPath, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: keyPath])
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
        try Data(made.keyPEM.utf8).write(to: URL(fileURLWithPath: keyPath))
        try Data(made.pem.utf8).write(to: url, options: .atomic)
        return made
    }

    private init(pem: String, key: P256.Signing.PrivateKey) throws {
        self.pem = pem
        keyPEM = key.pemRepresentation
        certificate = try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem)
        privateKey = try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
    }

    /// Makes a fresh key and a certificate valid for a year from an hour ago (clock skew).
    static func make(now: Date = Date()) throws -> APNsStandInCertificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("Book Corners sandbox")
            CommonName("APNs stand-in")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(.init(contentBytes: [127, 0, 0, 1]))])
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        let pem = try certificate.serializeAsPEM().pemString
        return try APNsStandInCertificate(pem: pem, key: key)
    }

    /// The server side of TLS with this identity.
    var serverConfiguration: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(privateKey))
    }
}
