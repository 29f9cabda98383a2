/// Text someone typed, quoted inside a sentence of ours.
public enum TypedText {
    /// `text` set apart with Unicode's first-strong isolate (U+2068 … U+2069), so right-to-left
    /// text or an override mark in it cannot reverse the sentence around it.
    public static func isolated(_ text: String) -> String {
        "\u{2068}\(text)\u{2069}"
    }
}
