import Foundation

/// A query string read as HTML forms and the Book Corners backend write it
/// (`application/x-www-form-urlencoded`): `+` is a space, then percent-escapes are decoded.
/// Hummingbird's `queryParameters` follows RFC 3986 and keeps `+`, so a search typed with a
/// space in a browser's GET form would look for a literal "+".
public enum FormQuery {
    /// The parameters in order; a value with a broken escape is kept as written.
    public static func parameters(_ query: String?) -> [(name: String, value: String)] {
        readParameters(query).map { ($0.name, $0.value) }
    }

    /// As `parameters`, saying of each value whether it was text: a broken `%` escape or bytes
    /// that are no UTF-8 (`q=%FF`) are kept as they were typed, `isText` false.
    public static func readParameters(_ query: String?) -> [(name: String, value: String, isText: Bool)] {
        guard let query, !query.isEmpty else { return [] }
        // Split by bytes: a "&" or "=" right after a joining scalar (U+0600) is no Character of
        // its own, so splitting Characters read `q=\u{600}&page=2` as one parameter.
        return query.utf8.split(separator: UInt8(ascii: "&")).map { pair in
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return (decode(Substring(pair)).text, "", true) }
            let value = decode(Substring(pair[pair.index(after: equals)...]))
            return (decode(Substring(pair[..<equals])).text, value.text, value.isText)
        }
    }

    /// The parameters by name; the last of a repeated name wins, as before.
    public static func dictionary(_ query: String?) -> [String: String] {
        Dictionary(parameters(query).map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    private static func decode(_ text: Substring) -> (text: String, isText: Bool) {
        // Most names and values (`status=pending`) have nothing to decode: Foundation's two passes cost more than the page's query.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) { return (String(text), true) }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        guard let decoded = spaced.removingPercentEncoding else { return (spaced, false) }
        return (decoded, true)
    }
}
