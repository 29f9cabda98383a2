import Foundation

/// Builds an SVG document element by element. Every piece of text goes through `escape`,
/// so labels that came from data (country and staff names) cannot become markup.
struct SVGWriter {
    private(set) var body = ""
    let width: Double
    let height: Double

    /// The templates' own escaping, by bytes (see `ConsoleHTMLContentType.escape`).
    static func escape(_ text: String) -> String {
        ConsoleHTMLContentType.escape(text)
    }

    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    private static func tooltip(_ title: String?) -> String {
        title.map { "<title>\(escape($0))</title>" } ?? ""
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, title: String? = nil) {
        let n = Self.number
        let open = "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(width, 0)))\" height=\"\(n(max(height, 0)))\" fill=\"\(fill)\""
        body += title == nil ? open + "/>" : open + ">" + Self.tooltip(title) + "</rect>"
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dashed: Bool = false) {
        let n = Self.number
        body +=
            "<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\"\(dashed ? " stroke-dasharray=\"4 3\"" : "")/>"
    }

    mutating func path(_ points: [(Double, Double)], stroke: String, width: Double = 2, dashed: Bool = false, fill: String = "none", close: Double? = nil) {
        guard let first = points.first else { return }
        let n = Self.number
        var d = "M\(n(first.0)) \(n(first.1))"
        for point in points.dropFirst() { d += " L\(n(point.0)) \(n(point.1))" }
        if let baseline = close, let last = points.last { d += " L\(n(last.0)) \(n(baseline)) L\(n(first.0)) \(n(baseline)) Z" }
        body +=
            "<path d=\"\(d)\" fill=\"\(fill)\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\" stroke-linejoin=\"round\"\(dashed ? " stroke-dasharray=\"6 4\"" : "")/>"
    }

    mutating func circle(x: Double, y: Double, radius: Double, fill: String, title: String? = nil) {
        let n = Self.number
        body += "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(radius))\" fill=\"\(fill)\">\(Self.tooltip(title))</circle>"
    }

    enum Anchor: String { case start, middle, end }

    mutating func text(
        _ content: String, x: Double, y: Double, anchor: Anchor = .start, size: Double = 12, weight: String? = nil, fill: String = ChartPalette.ink
    ) {
        let n = Self.number
        body +=
            "<text x=\"\(n(x))\" y=\"\(n(y))\" text-anchor=\"\(anchor.rawValue)\" font-size=\"\(n(size))\" fill=\"\(fill)\"\(weight.map { " font-weight=\"\($0)\"" } ?? "")>\(Self.escape(content))</text>"
    }

    /// A centred message where a chart would be: "No data yet". Broken into lines that fit
    /// the width (about 8 units a character at 15), so a phone's narrow drawing keeps it whole.
    mutating func message(_ content: String) {
        rect(x: 0.5, y: 0.5, width: width - 1, height: height - 1, fill: "#f6f4ef")
        let perLine = max(10, Int((width - 32) / 8))
        var lines: [String] = [""]
        for word in content.split(separator: " ") {
            if let last = lines.last, !last.isEmpty, last.count + 1 + word.count > perLine { lines.append("") }
            lines[lines.count - 1] += (lines[lines.count - 1].isEmpty ? "" : " ") + word
        }
        let top = height / 2 + 5 - Double(lines.count - 1) * 11
        for (index, line) in lines.enumerated() {
            text(line, x: width / 2, y: top + Double(index) * 22, anchor: .middle, size: 15, fill: ChartPalette.muted)
        }
    }

    /// The whole document: scales with its container (`viewBox`, no fixed size) and names
    /// itself for screen readers with `<title>` and `<desc>`.
    func document(id: String, title: String, description: String) -> String {
        let n = Self.number
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(n(width)) \(n(height))" role="img" aria-labelledby="\(id)-title \(id)-desc" \
            class="chart" font-family="system-ui, sans-serif"><title id="\(id)-title">\(Self.escape(title))</title>\
            <desc id="\(id)-desc">\(Self.escape(description))</desc>\(body)</svg>
            """
    }
}
