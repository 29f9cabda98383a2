import Foundation

extension Page {
    /// The hidden fields of the first form that posts to `action`, in order, unescaped: what a
    /// browser would send when its submit button is pressed. Empty when no such form exists.
    func hiddenFields(ofFormPostingTo action: String) -> [(String, String)] {
        guard let start = html.range(of: #"<form method="post" action="\#(action)""#),
            let end = html.range(of: "</form>", range: start.upperBound..<html.endIndex)
        else { return [] }
        let form = String(html[start.upperBound..<end.lowerBound])
        return form.matches(of: #/<input type="hidden" name="([^"]*)" value="([^"]*)">/#).map {
            (Self.unescaped(String($0.1)), Self.unescaped(String($0.2)))
        }
    }

    /// The HTML of the first table row (or else list item) that contains `text`; "" when none does.
    func item(containing text: String) -> String {
        for separator in ["<tr", "<li"] {
            let chunks = html.components(separatedBy: separator).dropFirst()
            if let chunk = chunks.first(where: { $0.contains(text) }) { return chunk }
        }
        return ""
    }
}
