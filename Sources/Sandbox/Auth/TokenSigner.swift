import Crypto
import Foundation

/// Issues and checks HS256 JWTs shaped like the real backend's (simplejwt):
/// `{"token_type", "exp", "iat", "jti", "user_id"}`.
struct TokenSigner: Sendable {
    enum TokenType: String, Codable, Sendable {
        case access, refresh
    }

    struct Claims: Codable, Sendable {
        let tokenType: TokenType
        let exp: Int
        let iat: Int
        let jti: String
        let userId: Int

        enum CodingKeys: String, CodingKey {
            case tokenType = "token_type"
            case exp, iat, jti
            case userId = "user_id"
        }
    }

    // SymmetricKey is not Sendable in swift-crypto 3; keep the bytes and build the key per use.
    private let secret: Data
    let accessLifetime: TimeInterval
    let refreshLifetime: TimeInterval

    init(secret: String, accessLifetime: TimeInterval, refreshLifetime: TimeInterval) {
        self.secret = Data(secret.utf8)
        self.accessLifetime = accessLifetime
        self.refreshLifetime = refreshLifetime
    }

    func issue(_ type: TokenType, userID: Int, now: Date = Date()) -> String {
        let issued = Int(now.timeIntervalSince1970)
        let lifetime = type == .access ? accessLifetime : refreshLifetime
        let claims = Claims(
            tokenType: type, exp: issued + Int(lifetime), iat: issued,
            jti: UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased(), userId: userID)
        let header = Self.base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        // Encoding a struct of strings and integers cannot fail.
        let payload = Self.base64URL((try? JSONEncoder().encode(claims)) ?? Data())
        let signingInput = header + "." + payload
        let signature = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: secret))
        return signingInput + "." + Self.base64URL(Data(signature))
    }

    /// What checking a token found, in simplejwt's order: signature and expiry first, then the type.
    enum Check: Equatable, Sendable {
        case valid(userID: Int)
        /// Signed and unexpired, but of the other type (a refresh token sent as a bearer).
        case wrongType
        case invalid
    }

    /// The user id of a valid, unexpired token of the given type, else `nil`.
    func verify(_ token: String, as type: TokenType, now: Date = Date()) -> Int? {
        guard case .valid(let userID) = check(token, as: type, now: now) else { return nil }
        return userID
    }

    /// Checks signature, expiry and type, and says which of them failed.
    func check(_ token: String, as type: TokenType, now: Date = Date()) -> Check {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let signature = Self.data(base64URL: parts[2]),
            HMAC<SHA256>.isValidAuthenticationCode(
                signature, authenticating: Data((parts[0] + "." + parts[1]).utf8), using: SymmetricKey(data: secret)),
            let payload = Self.data(base64URL: parts[1]),
            let claims = try? JSONDecoder().decode(Claims.self, from: payload),
            Double(claims.exp) > now.timeIntervalSince1970
        else { return .invalid }
        return claims.tokenType == type ? .valid(userID: claims.userId) : .wrongType
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
