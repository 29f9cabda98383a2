import Foundation

/// Text folded for search, the same way for what is stored and what is typed: case and width
/// folded, diacritics removed, "ß" → "ss", and the letters no decomposition reaches written
/// out ("ø" → "o", "æ" → "ae"). So "Strasse" finds "Straße" and "Bucherei" finds "Bücherei".
public enum SearchFolding {
    /// Letters Foundation's folding leaves as they are.
    private static let writtenOut: [Character: String] = [
        "æ": "ae", "ø": "o", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ŧ": "t", "ħ": "h",
    ]

    /// Between fields in `libraryText`: a character nobody searches for, so no match spans two fields.
    static let fieldSeparator = "\u{1F}"

    public static func fold(_ text: String) -> String {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        guard folded.contains(where: { writtenOut[$0] != nil }) else { return folded }
        return folded.reduce(into: "") { result, character in
            if let spelled = writtenOut[character] { result += spelled } else { result.append(character) }
        }
    }

    /// What a library's search matches: its name, address and city, each folded, with its
    /// spaces as a query's are.
    public static func libraryText(name: String, address: String, city: String) -> String {
        [name, address, city].map { spaced(fold($0)) }.joined(separator: fieldSeparator)
    }

    /// A typed query folded, control characters (the separator among them) dropped but white
    /// space ones (a tab) read as spaces, then its spaces made as a library's are ("a \u{1} b"
    /// and "a\tb" are "a b").
    public static func query(_ text: String) -> String {
        // White space first (a tab is both white space and a control character), then the other controls dropped.
        spaced(
            String(
                String.UnicodeScalarView(
                    fold(text).unicodeScalars.compactMap { scalar in
                        scalar.properties.isWhitespace ? " " : scalar.properties.generalCategory.isControl ? nil : scalar
                    })))
    }

    /// Each run of white space (tabs, line breaks and no-break spaces among it) one space, none
    /// at the ends: "Bench   Library" is typed as often as it is stored, and finds "Bench Library".
    static func spaced(_ text: String) -> String {
        guard
            text.unicodeScalars.contains(where: { $0.properties.isWhitespace && $0 != " " }) || text.contains("  ") || text.first == " "
                || text.last == " "
        else { return text }
        return text.split(whereSeparator: { $0.unicodeScalars.allSatisfy(\.properties.isWhitespace) }).joined(separator: " ")
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool { self == .control }
}
