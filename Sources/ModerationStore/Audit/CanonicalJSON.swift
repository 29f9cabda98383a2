import Foundation

/// JSON string literals exactly as Foundation's `JSONEncoder` writes them (slashes
/// escaped, `\b \f \n \r \t` short, other controls as `\u00XX`, everything else as is),
/// without building an encoder per string. Audit hashes depend on this byte for byte;
/// a test compares it with `JSONEncoder` over every ASCII character and more.
enum CanonicalJSON {
    static func string(_ value: String) -> String {
        var bytes: [UInt8] = [34]
        bytes.reserveCapacity(value.utf8.count + 2)
        let hex = Array("0123456789abcdef".utf8)
        for byte in value.utf8 {
            switch byte {
            case 34: bytes += [92, 34]
            case 92: bytes += [92, 92]
            case 47: bytes += [92, 47]
            case 8: bytes += [92, 98]
            case 12: bytes += [92, 102]
            case 10: bytes += [92, 110]
            case 13: bytes += [92, 114]
            case 9: bytes += [92, 116]
            case 0..<32: bytes += [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(34)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Times as the audit table stores them: GRDB's text format, whole milliseconds, UTC.
enum StoredTime {
    /// `date` with everything below the millisecond dropped, as the column keeps it.
    static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds(date)) / 1000)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `2026-11-22 08:03:57.123`.
    static func string(_ date: Date) -> String {
        var bytes: [UInt8] = []
        ISOTime.append(truncated(date), to: &bytes)
        // ISO's "T" and "Z" become GRDB's space and nothing.
        bytes[10] = 32
        bytes.removeLast()
        return String(decoding: bytes, as: UTF8.self)
    }
}
