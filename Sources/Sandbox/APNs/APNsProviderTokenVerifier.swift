import Crypto
import Foundation
import Synchronization

/// Checks a provider JWT as APNs does: ES256 signature by the configured key, its `kid` and
/// `iss`, and an `iat` under an hour old. A verified token is remembered with its `iat`, so a
/// connection carrying thousands of pushes pays for one signature check, not thousands.
final class APNsProviderTokenVerifier: Sendable {
    /// APNs refuses tokens older than this.
    static let maximumAge: TimeInterval = 3600
    /// Enough for a few keys' worth of renewals; cleared when full, never grown without bound.
    private static let cacheCapacity = 64

    /// The key's raw bytes: swift-crypto's key types are not `Sendable` here, bytes are.
    private let publicKeyBytes: Data
    private let keyID: String
    private let teamID: String
    private let verified = Mutex<[String: Date]>([:])

    init(publicKey: P256.Signing.PublicKey, keyID: String, teamID: String) {
        self.publicKeyBytes = publicKey.rawRepresentation
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Checks an `authorization` header value (`bearer <jwt>`) at `now`.
    func check(authorization: String?, now: Date) -> APNsRejection? {
        guard let authorization, !authorization.isEmpty else { return .missingProviderToken }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .missingProviderToken }
        let jwt = String(parts[1])
        let cached = verified.withLock { $0[jwt] }
        guard let issuedAt = cached ?? verify(jwt) else { return .invalidProviderToken }
        if cached == nil {
            verified.withLock { cache in
                if cache.count >= Self.cacheCapacity { cache.removeAll() }
                cache[jwt] = issuedAt
            }
        }
        return now.timeIntervalSince(issuedAt) > Self.maximumAge ? .expiredProviderToken : nil
    }

    private struct Header: Decodable {
        let alg: String
        let kid: String
    }

    private struct Claims: Decodable {
        let iss: String
        let iat: Int
    }

    /// The token's `iat` when header, claims and signature all check out.
    private func verify(_ jwt: String) -> Date? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = TokenSigner.data(base64URL: parts[0]),
            let claimsData = TokenSigner.data(base64URL: parts[1]),
            let signatureData = TokenSigner.data(base64URL: parts[2]),
            let header = try? JSONDecoder().decode(Header.self, from: headerData),
            let claims = try? JSONDecoder().decode(Claims.self, from: claimsData),
            header.alg == "ES256", header.kid == keyID, claims.iss == teamID,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureData),
            let publicKey = try? P256.Signing.PublicKey(rawRepresentation: publicKeyBytes)
        else { return nil }
        let signingInput = Data(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard publicKey.isValidSignature(signature, for: signingInput) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(claims.iat))
    }
}
