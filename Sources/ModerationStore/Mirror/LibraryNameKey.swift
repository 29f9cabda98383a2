import Foundation

/// The form of a library's name that duplicate checks compare: case, accents, punctuation
/// and spacing do not make two names different.
public enum LibraryNameKey {
    public static func normalize(_ name: String) -> String {
        let folded = name.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return String(String.UnicodeScalarView(folded.unicodeScalars.filter(isLetterOrDigit)))
    }

    /// Letters and digits of any script count; everything else is punctuation or space.
    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}
