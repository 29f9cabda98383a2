import ModerationVocabulary

/// How library fields read on pages.
enum LibraryText {
    static let unnamed = "Unnamed library"

    static func displayName(_ name: String) -> String {
        isBlank(name) ? unnamed : name
    }

    /// Empty or only whitespace (cheaper than trimming, and this runs for every row).
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }

    /// "Via Roma 1, Florence, IT". A right-to-left part is isolated, so "רחוב דיזנגוף 103, Tel
    /// Aviv, IL" keeps its order and its commas in a left-to-right page.
    static func place(address: String = "", city: String, country: String) -> String {
        [address, city, country].filter { !$0.isEmpty }.map(TypedText.isolatedIfBidirectional).joined(separator: ", ")
    }

    /// "Corner Books in Florence", as notifications and confirmations say it.
    static func nameInCity(_ name: String, city: String) -> String {
        city.isEmpty ? displayName(name) : "\(displayName(name)) in \(city)"
    }
}
