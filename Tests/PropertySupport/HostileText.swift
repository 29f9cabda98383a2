import PropertyBased

/// Text built to break encoders: the characters CSV, JSON and HTML give meaning to, line
/// breaks of every kind, formula starters, emoji, right-to-left and joining scalars, control
/// characters (never NUL: SQLite and C strings end there), mixed with random scalars from
/// anywhere in Unicode. Shared by the property checks of every test target.
public enum HostileText {
    public static let pieces: [String] = [
        ",", "\"", "\"\"", "'", "\r", "\n", "\r\n", "\n\r", "\t", " ", "  ", "=", "+", "-", "@", "'=", "''+", "=SUM(A1:A9)",
        "\\", "/", "\\u0000", "{", "}", "[", "]", ":", "<", ">", "&", "&amp;", "&lt;", "&#39;", "%", "%20", "%zz", "+",
        "a", "Z", "0", "9", "é", "e\u{301}", "📚", "🏳️‍🌈", "👩🏽‍💻", "مكتبة", "ספרייה", "\u{202E}", "\u{202C}", "\u{200F}", "\u{2066}",
        "\u{600}", "\u{FEFF}", "\u{2028}", "\u{2029}", "\u{85}", "\u{7F}", "\u{1}", "\u{8}", "\u{B}", "\u{C}", "\u{1B}", "\u{1F}",
        "Ω", "中文", "\u{10FFFD}",
    ]

    /// One piece of `pieces`.
    public static let piece = Gen<String?>.element(of: pieces).map { $0 ?? "" }

    /// Any scalar but NUL and the surrogates (which no Swift string holds).
    public static let scalar = Gen<UInt32>.value(in: 1...0x10_FFFF)
        .map { value in Unicode.Scalar(value).map { String(Character($0)) } ?? "\u{FFFD}" }

    /// Strings of up to `pieces` pieces, most from the list, some random scalars.
    public static func text(pieces count: ClosedRange<Int> = 0...12) -> Generator<String, AnySequence<Any>> {
        Gen.frequency((4, piece), (1, scalar)).array(of: count).map { $0.joined() }.eraseToAny()
    }
}

/// SplitMix64: small, seeded, and the same on every platform, so a property's or a fuzz run's
/// seed replays it exactly.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
