import Crypto
import Foundation
import Synchronization

/// The JWT that authenticates the console to APNs (ES256, `kid`, `iss`, `iat`). Apple wants
/// it reused for up to an hour and refreshed at most every 20 minutes, so one is shared by
/// every push and replaced only when old or when APNs calls the current one expired.
public final class APNsProviderToken: Sendable {
    /// Reused this long, comfortably inside APNs' one hour.
    public static let reuseLifetime: TimeInterval = 50 * 60
    /// APNs answers `TooManyProviderTokenUpdates` to faster changes.
    public static let minimumRenewalInterval: TimeInterval = 20 * 60

    /// The key's raw bytes: swift-crypto's key types are not `Sendable` here, bytes are.
    private let keyBytes: Data
    private let keyID: String
    private let teamID: String
    private let now: @Sendable () -> Date
    private let minted = Mutex<Minted?>(nil)

    private struct Minted {
        let jwt: String
        let issuedAt: Date
    }

    /// `now` is the wall clock the `iat` claim and the token's age are read from.
    public init(key: P256.Signing.PrivateKey, keyID: String, teamID: String, now: @escaping @Sendable () -> Date = Date.init) {
        self.keyBytes = key.rawRepresentation
        self.keyID = keyID
        self.teamID = teamID
        self.now = now
    }

    /// The token to send now: the current one while under 50 minutes old, else a new one.
    public func current() throws -> String {
        try minted.withLock { minted in
            let now = self.now()
            if let existing = minted, now.timeIntervalSince(existing.issuedAt) < Self.reuseLifetime {
                return existing.jwt
            }
            let fresh = try mint(at: now)
            minted = fresh
            return fresh.jwt
        }
    }

    /// After APNs answered `ExpiredProviderToken` to `rejected`: a new token if `rejected` is
    /// still the current one and at least 20 minutes old; otherwise the current one unchanged
    /// (another push already renewed it, or renewing again now would be too soon).
    public func renew(after rejected: String) throws -> String {
        try minted.withLock { minted in
            let now = self.now()
            if let existing = minted {
                guard existing.jwt == rejected, now.timeIntervalSince(existing.issuedAt) >= Self.minimumRenewalInterval else {
                    return existing.jwt
                }
            }
            let fresh = try mint(at: now)
            minted = fresh
            return fresh.jwt
        }
    }

    private func mint(at date: Date) throws -> Minted {
        let issuedAt = Int(date.timeIntervalSince1970)
        let header = try JSONEncoder.sorted.encode(["alg": "ES256", "kid": keyID])
        let claims = try JSONEncoder.sorted.encode(Claims(iss: teamID, iat: issuedAt))
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        // ES256 in a JWS is the raw r||s pair (64 bytes), not DER.
        let key = try P256.Signing.PrivateKey(rawRepresentation: keyBytes)
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        return Minted(jwt: signingInput + "." + Base64URL.encode(signature), issuedAt: Date(timeIntervalSince1970: TimeInterval(issuedAt)))
    }

    private struct Claims: Encodable {
        let iss: String
        let iat: Int
    }
}

extension JSONEncoder {
    /// Keys in a stable order, so equal claims encode to equal bytes.
    fileprivate static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
