import Foundation

/// A query string read as HTML forms and the Book Corners backend write it
/// (`application/x-www-form-urlencoded`): `+` is a space, then percent-escapes are decoded.
/// Hummingbird's `queryParameters` follows RFC 3986 and keeps `+`, so a search typed with a
/// space in a browser's GET form would look for a literal "+".
public enum FormQuery {
    /// The parameters in order; a value with a broken escape is kept as written.
    public static func parameters(_ query: String?) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? decode(parts[1]) : ""
            return (decode(parts[0]), value)
        }
    }

    /// The parameters by name; the last of a repeated name wins, as before.
    public static func dictionary(_ query: String?) -> [String: String] {
        Dictionary(parameters(query).map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
