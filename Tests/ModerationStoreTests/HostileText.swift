import PropertyBased

/// Text built to break encoders: the characters CSV, JSON and HTML give meaning to, line
/// breaks of every kind, formula starters, emoji, right-to-left and joining scalars, control
/// characters (never NUL: SQLite and C strings end there), mixed with random scalars from
/// anywhere in Unicode. ConsoleServerTests has the same list: each test target has its own copy.
enum HostileText {
    static let pieces: [String] = [
        ",", "\"", "\"\"", "'", "\r", "\n", "\r\n", "\n\r", "\t", " ", "  ", "=", "+", "-", "@", "'=", "''+", "=SUM(A1:A9)",
        "\\", "/", "\\u0000", "{", "}", "[", "]", ":", "<", ">", "&", "&amp;", "&lt;", "&#39;", "%", "%20", "%zz", "+",
        "a", "Z", "0", "9", "é", "e\u{301}", "📚", "🏳️‍🌈", "👩🏽‍💻", "مكتبة", "ספרייה", "\u{202E}", "\u{202C}", "\u{200F}", "\u{2066}",
        "\u{600}", "\u{FEFF}", "\u{2028}", "\u{2029}", "\u{85}", "\u{7F}", "\u{1}", "\u{8}", "\u{B}", "\u{C}", "\u{1B}", "\u{1F}",
        "Ω", "中文", "\u{10FFFD}",
    ]

    /// One piece of `pieces`.
    static let piece = Gen<String?>.element(of: pieces).map { $0 ?? "" }

    /// Any scalar but NUL and the surrogates (which no Swift string holds).
    static let scalar = Gen<UInt32>.value(in: 1...0x10_FFFF)
        .map { value in Unicode.Scalar(value).map { String(Character($0)) } ?? "\u{FFFD}" }

    /// Strings of up to `pieces` pieces, most from the list, some random scalars.
    static func text(pieces count: ClosedRange<Int> = 0...12) -> Generator<String, AnySequence<Any>> {
        Gen.frequency((4, piece), (1, scalar)).array(of: count).map { $0.joined() }.eraseToAny()
    }
}
