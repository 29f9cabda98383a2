import Crypto
import Foundation

/// Encrypts backend tokens at rest with AES-GCM, so a copy of the database alone does not
/// give anyone a staff member's Book Corners session.
public struct TokenSealer: Sendable {
    // SymmetricKey is not Sendable in swift-crypto 3; keep the bytes.
    private let keyBytes: Data

    /// A sealer for a 32-byte key.
    public init(key: Data) throws(TokenSealerError) {
        guard key.count == 32 else { throw .badKeyLength(key.count) }
        keyBytes = key
    }

    /// The key from `base64Key` when given, else from `keyFile`, which is created (mode 0600)
    /// with a fresh random key on first start.
    public static func load(base64Key: String?, keyFile: String) throws -> TokenSealer {
        if let base64Key {
            guard let key = Data(base64Encoded: base64Key) else { throw TokenSealerError.badBase64 }
            return try TokenSealer(key: key)
        }
        let manager = FileManager.default
        if manager.fileExists(atPath: keyFile) {
            // Whoever can read the key can open every stored backend token.
            let mode = (try? manager.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int) ?? 0
            guard mode & 0o077 == 0 else { throw TokenSealerError.keyFileTooOpen(keyFile, mode: mode) }
            guard let existing = manager.contents(atPath: keyFile) else { throw TokenSealerError.cannotReadKeyFile(keyFile) }
            return try TokenSealer(key: existing)
        }
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        guard manager.createFile(atPath: keyFile, contents: key, attributes: [.posixPermissions: 0o600]) else {
            throw TokenSealerError.cannotWriteKeyFile(keyFile)
        }
        return try TokenSealer(key: key)
    }

    public func seal(_ text: String) throws -> Data {
        guard let combined = try AES.GCM.seal(Data(text.utf8), using: SymmetricKey(data: keyBytes)).combined else {
            throw TokenSealerError.sealFailed
        }
        return combined
    }

    /// The text sealed in `sealed`; `cannotOpen` when another key sealed it or it was altered.
    public func open(_ sealed: Data) throws(TokenSealerError) -> String {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return String(decoding: try AES.GCM.open(box, using: SymmetricKey(data: keyBytes)), as: UTF8.self)
        } catch {
            throw .cannotOpen
        }
    }
}

public enum TokenSealerError: Error, Equatable, CustomStringConvertible {
    case badKeyLength(Int)
    case badBase64
    case cannotWriteKeyFile(String)
    case cannotReadKeyFile(String)
    /// Group or others may read or write the key file.
    case keyFileTooOpen(String, mode: Int)
    case sealFailed
    /// Sealed with another key, or altered since.
    case cannotOpen

    public var description: String {
        switch self {
        case .badKeyLength(let count): "The token key must be 32 bytes, got \(count)."
        case .badBase64: "The token key is not valid base64."
        case .cannotWriteKeyFile(let path): "Cannot create the token key file at \(path)."
        case .cannotReadKeyFile(let path): "Cannot read the token key file at \(path); check its owner and mode."
        case .keyFileTooOpen(let path, let mode):
            "The token key file \(path) is readable by other users (mode \(String(mode, radix: 8))). Run `chmod 600 \(path)` and start the console again."
        case .sealFailed: "Could not encrypt a token."
        case .cannotOpen: "A stored token cannot be decrypted: another key sealed it, or it was altered."
        }
    }
}
