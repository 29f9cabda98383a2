import ModerationStore

/// How an item is named in claim messages and audit entries.
enum ItemText {
    /// "library corner-books", "report 42", "photo 7".
    static func name(_ target: ItemClaim.Target) -> String {
        "\(target.kind.rawValue) \(target.key)"
    }
}
