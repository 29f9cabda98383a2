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

    /// Escapes `< > & " '` by UTF-8 byte. Comparing Characters instead would miss a `<` that
    /// follows a "prepend" scalar such as U+0600: the two form one Character that is not `<`.
    /// Charts use this too, for the markup they build by hand.
    /// A C0 control but tab, LF and CR; DEL; or 0xC2, which leads U+0080–U+00BF (the C1 controls among them).
    private static func mayStartControl(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F, 0xC2: true
        default: false
        }
    }

    /// Control characters are made visible first (`ControlCharacters`): text from Book Corners is
    /// kept as it came in the mirror's whole records, and a page must not print a raw ESC or BEL
    /// where the list beside it shows ␛.
    static func escape(_ text: String) -> String {
        let text = text.utf8.contains(where: Self.mayStartControl) ? ControlCharacters.escaped(text) : text
        var utf8 = text.utf8
        guard utf8.contains(where: { $0 == 0x3C || $0 == 0x3E || $0 == 0x26 || $0 == 0x22 || $0 == 0x27 }) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count + 16)
        utf8 = text.utf8
        for byte in utf8 {
            switch byte {
            case 0x3C: bytes += [0x26, 0x6C, 0x74, 0x3B]  // &lt;
            case 0x3E: bytes += [0x26, 0x67, 0x74, 0x3B]  // &gt;
            case 0x26: bytes += [0x26, 0x61, 0x6D, 0x70, 0x3B]  // &amp;
            case 0x22: bytes += [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B]  // &quot;
            case 0x27: bytes += [0x26, 0x23, 0x33, 0x39, 0x3B]  // &#39;
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
