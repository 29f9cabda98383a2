import ModerationVocabulary
import Mustache

/// HTML escaping for every `{{…}}` in our templates (selected by the
/// `{{% CONTENT_TYPE: ConsoleHTML }}` pragma at the top of each one). It escapes the same
/// five characters as swift-mustache's own HTML type (`< > & " '`), working on UTF-8 bytes
/// with a fast path for text that needs nothing: the default looks every Character up in a
/// dictionary, which was a fifth of a queue page's cost (docs/benchmarks.md).
struct ConsoleHTMLContentType: MustacheContentType {
    static let name = "ConsoleHTML"

    /// Makes the type known to template parsing; call before loading templates.
    static func register() {
        MustacheContentTypes.register(ConsoleHTMLContentType(), named: name)
    }

    func escapeText(_ text: String) -> String {
        Self.escape(text)
    }

    /// A C0 control but tab, LF and CR; DEL; 0xC2, which leads U+0080–U+00BF (the C1 controls
    /// among them); or 0xE2, which leads U+2000–U+2FFF (the bidi overrides among them).
    private static func mayNeedShowing(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F, 0xC2, 0xE2: true
        default: false
        }
    }

    /// A bidi embedding or override (U+202A–U+202E): inside a name it reverses what follows
    /// ("\u{202E}evil.exe" reads "exe.live"). Isolates (U+2066–U+2069) stay: they reorder nothing
    /// outside themselves, and the console's own sentences use them.
    private static func isOverride(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value)
    }

    /// `text` as a page shows it: control characters made visible (`ControlCharacters`; text from
    /// Book Corners is kept as it came in the mirror's whole records), and bidi overrides too,
    /// as `<U+202E>`, so a moderator sees the trick instead of its effect.
    static func visible(_ text: String) -> String {
        let escaped = ControlCharacters.escaped(text)
        guard escaped.unicodeScalars.contains(where: isOverride) else { return escaped }
        var result = String.UnicodeScalarView()
        for scalar in escaped.unicodeScalars {
            if isOverride(scalar) {
                result.append(contentsOf: "<U+\(String(scalar.value, radix: 16, uppercase: true))>".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Escapes `< > & " '` by UTF-8 byte, after making controls visible (`visible`). Comparing
    /// Characters instead would miss a `<` that follows a "prepend" scalar such as U+0600: the
    /// two form one Character that is not `<`. Charts use this too, for the markup they build by hand.
    static func escape(_ text: String) -> String {
        let found = text.utf8.withContiguousStorageIfAvailable(needs) ?? needs(Array(text.utf8))
        guard found.showing || found.entities else { return text }
        var escaped = ""
        escape(text, into: &escaped)
        return escaped
    }

    /// Whether `bytes` hold a control to show, and a character to write as an entity: over the
    /// bytes in place, the scan every value of every page makes.
    private static func needs(_ bytes: some Collection<UInt8>) -> (showing: Bool, entities: Bool) {
        var (needsShowing, needsEntities) = (false, false)
        for byte in bytes {
            if byte == 0x3C || byte == 0x3E || byte == 0x26 || byte == 0x22 || byte == 0x27 {
                needsEntities = true
            } else if mayNeedShowing(byte) {
                needsShowing = true
            }
        }
        return (needsShowing, needsEntities)
    }

    /// `escape(text)` appended to `output`: how templates write a value, with no string in between
    /// for the values that need nothing (nearly all).
    static func escape(_ text: String, into output: inout String) {
        // One pass over the bytes answers both questions; nearly every value needs neither.
        let (needsShowing, needsEntities) = text.utf8.withContiguousStorageIfAvailable(needs) ?? needs(Array(text.utf8))
        guard needsShowing || needsEntities else { return output += text }
        let text = needsShowing ? visible(text) : text
        // Made visible, a C1 control or an override reads `<U+0085>`: its brackets need entities too.
        guard needsEntities || text.utf8.contains(where: { $0 == 0x3C || $0 == 0x3E }) else { return output += text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case 0x3C: bytes += [0x26, 0x6C, 0x74, 0x3B]  // &lt;
            case 0x3E: bytes += [0x26, 0x67, 0x74, 0x3B]  // &gt;
            case 0x26: bytes += [0x26, 0x61, 0x6D, 0x70, 0x3B]  // &amp;
            case 0x22: bytes += [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B]  // &quot;
            case 0x27: bytes += [0x26, 0x23, 0x33, 0x39, 0x3B]  // &#39;
            default: bytes.append(byte)
            }
        }
        output += String(decoding: bytes, as: UTF8.self)
    }
}
