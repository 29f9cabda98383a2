import Foundation

extension Page {
    /// The whole element (from its start tag to its matching end tag, nested elements of the
    /// same name counted) whose start tag has `class="<className>"`; nil when there is none.
    func element(withClass className: String) -> String? {
        guard let start = html.range(of: #"<([a-z0-9]+)[^>]*\sclass="\#(className)""#, options: .regularExpression) else { return nil }
        let tag = String(html[html.index(after: start.lowerBound)...].prefix { $0.isLetter || $0.isNumber })
        var depth = 0
        var cursor = start.lowerBound
        while let next = html.range(of: #"</?\#(tag)[\s>]"#, options: .regularExpression, range: cursor..<html.endIndex) {
            depth += html[next].hasPrefix("</") ? -1 : 1
            cursor = next.upperBound
            if depth == 0, let close = html.range(of: ">", range: next.lowerBound..<html.endIndex) {
                return String(html[start.lowerBound..<close.upperBound])
            }
        }
        return nil
    }

    /// The text of `fragment` without its tags, whitespace runs made one space.
    static func text(of fragment: String) -> String {
        fragment.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
