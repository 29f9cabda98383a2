/// Text someone typed: kept with one kind of line break, and quoted inside a sentence of ours.
public enum TypedText {
    /// `text` with each CR LF as LF. Browsers send a textarea's line breaks as CR LF but count
    /// each as one character against `maxlength`; stored and sent on as LF, a length limit means
    /// the same in the browser, here, in SQLite and at Book Corners. A lone CR (never a browser's
    /// line break) is kept, as every other control character is.
    public static func withLineFeeds(_ text: String) -> String {
        guard text.unicodeScalars.contains("\r") else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n")
    }

    /// `text` set apart with Unicode's first-strong isolate (U+2068 … U+2069), so right-to-left
    /// text or an override mark in it cannot reverse the sentence around it.
    public static func isolated(_ text: String) -> String {
        "\u{2068}\(text)\u{2069}"
    }

    /// `text` isolated only when it needs it: when it holds right-to-left letters or a
    /// directional control. Left-to-right text stays as typed, so it still reads and matches plainly.
    public static func isolatedIfBidirectional(_ text: String) -> String {
        text.unicodeScalars.contains(where: isBidirectional) ? isolated(text) : text
    }

    /// Hebrew, Arabic, Syriac, Thaana, N'Ko and the other right-to-left blocks, their
    /// presentation forms, and the marks, embeddings, overrides and isolates of Unicode's bidi algorithm.
    private static func isBidirectional(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
        case 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
