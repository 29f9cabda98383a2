import Foundation

extension Page {
    /// Every address the page's HTML points at (`href`, `src`, `action`, `formaction`), in
    /// document order, with the HTML character references a browser would undo undone.
    var linkTargets: [String] {
        let pattern = #"\s(?:href|src|action|formaction)="([^"]*)""#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(html.startIndex..., in: html)
        return expression.matches(in: html, range: range).compactMap { match in
            Range(match.range(at: 1), in: html).map { Self.unescaped(String(html[$0])) }
        }
    }

    /// Undoes the escapes our templates write (swift-mustache escapes `< > & " '`).
    static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
