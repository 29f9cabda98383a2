/// Counts with their nouns in the right number, everywhere a page, a message or an export
/// counts something: "1 library", "3 libraries", "Reject 1 library?". English only needs
/// one and other; every count in the console goes through here so none reads "1 libraries".
public enum CountText {
    /// "1 decision", "3 decisions", "0 decisions".
    public static func of(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(noun(count, singular, plural))"
    }

    /// The noun alone, in the number `count` asks for: "library" or "libraries".
    public static func noun(_ count: Int, _ singular: String, _ plural: String) -> String {
        count == 1 ? singular : plural
    }

    /// "1 library", "2 libraries".
    public static func libraries(_ count: Int) -> String { of(count, "library", "libraries") }
}
