import Crypto
import Foundation

/// Salted SHA-256 password hashes for the sandbox's seeded accounts. Good enough for a
/// stand-in backend that holds demo accounts only; never reuse it for real passwords.
enum PasswordHasher {
    static func hash(_ password: String, salt: String) -> String {
        SHA256.hash(data: Data((salt + ":" + password).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func verify(_ password: String, salt: String, hash expected: String) -> Bool {
        let actual = hash(password, salt: salt)
        // Compare without an early exit so timing says nothing about the prefix.
        return actual.utf8.count == expected.utf8.count
            && zip(actual.utf8, expected.utf8).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
