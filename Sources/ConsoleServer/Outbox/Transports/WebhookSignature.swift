import Crypto
import Foundation

/// Signs webhook requests, and verifies them for a receiver: `v1=<hex HMAC-SHA256(secret,
/// "<timestamp>.<body>")>` in `Book-Corners-Console-Signature`, the Unix time in
/// `Book-Corners-Console-Timestamp`. Signing the time with the body lets a receiver refuse
/// a captured request replayed later.
public struct WebhookSignature: Sendable {
    public static let timestampHeader = "Book-Corners-Console-Timestamp"
    public static let signatureHeader = "Book-Corners-Console-Signature"
    /// How far a timestamp may be from the receiver's clock, either way.
    public static let tolerance: TimeInterval = 300

    private static let scheme = "v1="
    // SymmetricKey is not Sendable in swift-crypto 3; keep the bytes.
    private let secret: Data

    public init(secret: Data) {
        self.secret = secret
    }

    /// The signature header's value for `body` sent at `timestamp` (Unix seconds).
    public func sign(body: Data, timestamp: Int) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Self.signedBytes(body: body, timestamp: timestamp), using: SymmetricKey(data: secret))
        return Self.scheme + code.map { String(format: "%02x", $0) }.joined()
    }

    /// Checks a received request: the signature matches (compared in constant time) and the
    /// timestamp is within five minutes of `now`. Throws why it is refused.
    public func verify(body: Data, timestamp: String, signature: String, now: Date = Date()) throws(Refusal) {
        guard let seconds = Int(timestamp.trimmingCharacters(in: .whitespaces)) else { throw .malformed }
        guard signature.hasPrefix(Self.scheme), let code = Self.bytes(hex: signature.dropFirst(Self.scheme.count)) else { throw .malformed }
        let age = now.timeIntervalSince1970 - TimeInterval(seconds)
        guard age <= Self.tolerance else { throw .tooOld }
        guard age >= -Self.tolerance else { throw .inTheFuture }
        guard HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Self.signedBytes(body: body, timestamp: seconds), using: SymmetricKey(data: secret))
        else { throw .mismatch }
    }

    /// Why a receiver refuses a request.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// A header is missing its `v1=` hexadecimal or its whole-number timestamp.
        case malformed
        /// Signed more than five minutes ago: a replay, or a clock far behind.
        case tooOld
        /// Signed more than five minutes ahead of this clock.
        case inTheFuture
        /// Another secret signed it, or the body or timestamp changed on the way.
        case mismatch

        public var description: String {
            switch self {
            case .malformed: "the signature or timestamp header is missing or malformed"
            case .tooOld: "the timestamp is more than five minutes old (a replay, or a slow clock)"
            case .inTheFuture: "the timestamp is more than five minutes in the future (check the clocks)"
            case .mismatch: "the signature does not match the body (another secret, or the body was changed)"
            }
        }
    }

    private static func signedBytes(body: Data, timestamp: Int) -> Data {
        var bytes = Data("\(timestamp).".utf8)
        bytes.append(body)
        return bytes
    }

    private static func bytes(hex: Substring) -> Data? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes = Data(capacity: 32)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 48...57: digit - 48
        case 97...102: digit - 87
        case 65...70: digit - 55
        default: nil
        }
    }
}
