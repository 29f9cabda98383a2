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
}
