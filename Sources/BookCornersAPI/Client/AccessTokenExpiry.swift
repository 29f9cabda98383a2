import Foundation

/// When an access token (a JWT) expires, read from its `exp` claim without checking the
/// signature: only the backend can trust it, but the console can avoid sending one the
/// backend would refuse (a 401 still costs a read of the rate-limit budget).
enum AccessTokenExpiry {
    /// Refresh this long before `exp`: covers clock skew and the call's own time in flight.
    static let margin: TimeInterval = 10

    /// `nil` when the token is not a JWT with a numeric `exp` (then the 401 path decides).
    static func expiry(of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let exp = claims["exp"] as? NSNumber
        else { return nil }
        return Date(timeIntervalSince1970: exp.doubleValue)
    }

    /// Whether `token` expires within `margin` of `now`.
    static func expiresSoon(_ token: String, now: Date = Date()) -> Bool {
        guard let expiry = expiry(of: token) else { return false }
        return expiry.timeIntervalSince(now) < margin
    }
}
