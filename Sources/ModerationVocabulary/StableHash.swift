/// A short hash of some text fields that is the same in every process and every run (Swift's
/// `Hasher` is seeded per process): FNV-1a, 64 bits, over each field's length and bytes, so no
/// two different lists of fields run together. For telling versions apart, not for secrets.
public enum StableHash {
    public static func of(_ fields: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        // Byte by byte, with no array per field: a queue page hashes every row's fields.
        for var field in fields {
            for byte in String(field.utf8.count).utf8 { add(byte) }
            add(0x1F)
            // The stored bytes themselves, not the UTF-8 view's iterator: a queue page hashes
            // every row's description.
            field.withUTF8 { bytes in
                for byte in bytes { add(byte) }
            }
        }
        return String(hash, radix: 16)
    }
}
