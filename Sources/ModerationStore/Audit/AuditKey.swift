import Crypto
import Foundation

/// The secret that keys the audit chain: with it each new entry's hash is an HMAC-SHA256,
/// so someone who can rewrite the database but has not got this file cannot forge a chain
/// that verifies. It lives outside the database, and is never written into it.
public struct AuditKey: Sendable {
    /// Fewer random bytes than a SHA-256 block's worth of entropy would make guessing cheaper.
    public static let minimumLength = 32
    // SymmetricKey is not Sendable in swift-crypto 3; keep the bytes.
    private let keyBytes: Data

    public init(key: Data) throws(AuditKeyError) {
        guard key.count >= Self.minimumLength else { throw .tooShort(key.count) }
        keyBytes = key
    }

    /// The key in `path`: refused when group or others may read or write it, as `console.key` is.
    public static func load(path: String) throws(AuditKeyError) -> AuditKey {
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { throw .missing(path) }
        let mode = (try? manager.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? 0
        guard mode & 0o077 == 0 else { throw .tooOpen(path, mode: mode) }
        guard let bytes = manager.contents(atPath: path) else { throw .unreadable(path) }
        do {
            return try AuditKey(key: bytes)
        } catch {
            throw .tooShortFile(path, bytes.count)
        }
    }

    /// HMAC-SHA256 (hex) of `data`.
    func mac(_ data: Data) -> String {
        AuditEntry.hex(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: keyBytes)))
    }
}

public enum AuditKeyError: Error, Equatable, CustomStringConvertible {
    case tooShort(Int)
    case tooShortFile(String, Int)
    case missing(String)
    case unreadable(String)
    /// Group or others may read or write the key file.
    case tooOpen(String, mode: Int)
    /// The log is keyed and this store has no key: an unkeyed entry would break the chain.
    case keyRequired(since: Int64)
    /// The log is keyed with another key than this one.
    case notTheLogsKey(String)

    public var description: String {
        switch self {
        case .tooShort(let count): "The audit key must be at least \(AuditKey.minimumLength) bytes, got \(count)."
        case .tooShortFile(let path, let count):
            "The audit key file \(path) holds \(count) bytes; it needs at least \(AuditKey.minimumLength) random bytes (e.g. `head -c 32 /dev/urandom > \(path)`)."
        case .missing(let path): "There is no audit key file at \(path)."
        case .unreadable(let path): "Cannot read the audit key file at \(path); check its owner and mode."
        case .tooOpen(let path, let mode):
            "The audit key file \(path) is readable by other users (mode \(String(mode, radix: 8))). Run `chmod 600 \(path)` and try again."
        case .keyRequired(let since):
            "The audit log is keyed since entry \(since): give its key with --audit-key FILE (or CONSOLE_AUDIT_KEY), or nothing can be recorded."
        case .notTheLogsKey(let path):
            "\(path) is not the key the audit log was written with: entries written with it would never verify. Start with the log's own key."
        }
    }
}
