import Crypto
import Foundation
import NIOSSL
import X509

/// The stand-in's TLS identity: a self-signed P-256 certificate for `localhost` and
/// `127.0.0.1`, made at start. It is its own CA, so the console trusts it by a CA file.
struct APNsStandInCertificate: Sendable {
    /// What the console's CA file holds.
    let pem: String
    let certificate: NIOSSLCertificate
    let privateKey: NIOSSLPrivateKey

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
        return APNsStandInCertificate(
            pem: pem,
            certificate: try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem),
            privateKey: try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem))
    }

    /// The server side of TLS with this identity.
    var serverConfiguration: TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(privateKey))
    }
}
