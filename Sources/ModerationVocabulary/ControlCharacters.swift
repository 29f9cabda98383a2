/// Control characters made visible before text is stored or hashed. SQLite receives Swift
/// strings as C text, so a NUL cuts a value where it stands: an audit entry hashed over
/// "evil\0tail" but stored as "evil" no longer verifies, and the chain is broken for good.
/// Text that nobody may refuse (names from Book Corners, a browser's User-Agent) and text
/// typed into a form are therefore escaped at the boundary, so what is hashed is what is stored.
///
/// Tab, line feed and carriage return stay: they are ordinary typed text (a browser sends a
/// textarea's line breaks as CR LF). Every other C0 control becomes its Unicode control
/// picture (NUL → ␀, ESC → ␛, U+2400 + code), DEL becomes ␡, and a C1 control (U+0080–U+009F,
/// which has no picture) becomes the visible text `<U+0085>`.
public enum ControlCharacters {
    /// Whether `scalar` is escaped by `escaped(_:)`.
    public static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    /// Whether `text` holds a character `escaped(_:)` would change.
    public static func contains(in text: some StringProtocol) -> Bool {
        text.unicodeScalars.contains(where: needsEscaping)
    }

    /// `text` with every control character but tab, LF and CR made visible; unchanged (the
    /// same storage) when it holds none, which is nearly always.
    public static func escaped(_ text: String) -> String {
        guard contains(in: text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscaping(scalar) else {
                result.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x00...0x1F:
                result.append(Unicode.Scalar(0x2400 + scalar.value) ?? "\u{FFFD}")
            case 0x7F:
                result.append("\u{2421}")
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result.append(contentsOf: "<U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)>".unicodeScalars)
            }
        }
        return String(result)
    }
}
