/// What may name an item in a decision's URL: report and photo ids are positive decimal
/// integers written plainly (no sign, no leading zeros, within `Int`); library slugs use
/// only the characters a slug can have. Anything else is refused before it is recorded.
enum ItemReference {
    /// The id `text` spells, or nil when it is not an id.
    static func id(_ text: String) -> Int? {
        guard let first = text.utf8.first, first != UInt8(ascii: "0"), text.utf8.count <= 19,
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }

    /// Whether `text` can be a slug: ASCII letters, digits, `-` and `_`, 1 to 255 of them.
    static func isSlug(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
