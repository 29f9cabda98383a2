import Foundation
import NIOCore

/// One public file, read into memory at start-up with the headers it is served with.
struct StaticFile: Sendable {
    let bytes: ByteBuffer
    let type: StaticFileType
    /// Strong validator: a hash of the contents, so it changes exactly when the bytes do.
    let entityTag: String
    /// The file's modification time as an HTTP date.
    let lastModified: String

    init(bytes: [UInt8], type: StaticFileType, modified: Date) {
        self.bytes = ByteBuffer(bytes: bytes)
        self.type = type
        self.entityTag = "\"\(Self.fingerprint(bytes))\""
        self.lastModified = Self.httpDate(modified)
    }

    /// FNV-1a (64 bit) as hex: stable across restarts and machines, unlike `Hasher`.
    private static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// RFC 9110's IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
