import Foundation
import Testing

@testable import ConsoleServer

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads an SVG back as XML: every element with its attributes, and the text inside elements.
final class SVGReader: NSObject, XMLParserDelegate {
    struct Element {
        let name: String
        let attributes: [String: String]
        var text = ""
    }

    private(set) var elements: [Element] = []
    private var open: [Int] = []

    static func read(_ svg: String) throws -> SVGReader {
        let reader = SVGReader()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = reader
        guard parser.parse() else { throw parser.parserError ?? SVGError.unparsable }
        return reader
    }

    enum SVGError: Error { case unparsable }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        elements.append(Element(name: name, attributes: attributes))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = open.last { elements[index].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        open.removeLast()
    }

    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }
    var texts: [String] { all("text").map(\.text) }
}

@Suite("Charts: SVG from typed data", .timeLimit(.minutes(3)))
struct ChartTests {
    private let day = 86_400.0
    private let start = Date(timeIntervalSince1970: 1_790_000_000)

    @Test(
        "nice ticks step by 1, 2 or 5 times a power of ten and cover the data", arguments: [0.0, 1, 3, 7, 9.5, 10, 13, 99, 101, 434, 999, 1_234, 48_000, 0.37])
    func niceTicks(maximum: Double) {
        let scale = NiceScale(maximum: maximum, integers: maximum >= 1)
        let magnitude = pow(10, log10(scale.step).rounded(.down))
        #expect([1.0, 2, 5].contains { abs(scale.step - $0 * magnitude) < 1e-9 }, "step \(scale.step)")
        #expect(scale.ticks.first == 0)
        #expect((scale.ticks.last ?? 0) >= maximum)
        #expect(scale.ticks.count >= 2 && scale.ticks.count <= 8)
        if maximum > 0 { #expect(scale.upper - maximum < scale.step + 1e-9, "no empty band above the data") }
    }

    @Test("tick labels are short and exact")
    func labels() {
        #expect(NiceScale.label(200) == "200")
        #expect(NiceScale.label(2.5) == "2.5")
        #expect(NiceScale.label(50_000) == "50k")
        #expect(NiceScale(maximum: 434, integers: true).ticks == [0, 100, 200, 300, 400, 500])
    }

    @Test("the time axis picks days, weeks, months or years for the span")
    func timeAxis() {
        let week = TimeAxis(start: start, end: start.addingTimeInterval(6 * day))
        #expect(week.ticks.count == 6, "one tick per midnight inside the span")
        #expect(week.ticks.first?.label == "22 Sep", "the first midnight after 2026-09-21T21:06Z")
        let quarter = TimeAxis(start: start, end: start.addingTimeInterval(90 * day))
        #expect(quarter.ticks.count <= 8 && quarter.ticks.count >= 4)
        let months = TimeAxis(start: start, end: start.addingTimeInterval(540 * day))
        #expect(months.ticks.allSatisfy { !$0.label.contains(":") })
        #expect(months.ticks.first?.label.contains("20") == true, "the first month tick names its year")
        let years = TimeAxis(start: start, end: start.addingTimeInterval(3_000 * day))
        #expect(years.ticks.allSatisfy { $0.label.count == 4 })
    }

    @Test("a line chart's points are in time order and inside the plot area")
    func linePoints() throws {
        let points = [
            (start.addingTimeInterval(30 * day), 40.0), (start, 10), (start.addingTimeInterval(10 * day), 25), (start.addingTimeInterval(90 * day), 434),
        ]
        let svg = LineChart.svg(
            id: "t", title: "Growth", description: "d", series: [LineSeries(name: "Libraries", points: points.map { ($0.0, $0.1) })], area: true)
        let reader = try SVGReader.read(svg)
        let circles = reader.all("circle").compactMap { element -> (Double, Double)? in
            guard let x = element.attributes["cx"].flatMap(Double.init), let y = element.attributes["cy"].flatMap(Double.init) else { return nil }
            return (x, y)
        }
        #expect(circles.count == 4)
        #expect(circles.map(\.0) == circles.map(\.0).sorted(), "left to right in time order")
        #expect(circles.allSatisfy { $0.0 >= 56 && $0.0 <= LineChart.width - 20 && $0.1 >= 16 && $0.1 <= 280 - 34 })
        #expect(circles.last.map { $0.1 < circles[0].1 } == true, "the larger value is higher up")
        let root = try #require(reader.elements.first)
        #expect(root.name == "svg" && root.attributes["role"] == "img" && root.attributes["viewBox"] == "0 0 600 280")
        #expect(reader.all("title").first?.text == "Growth")
        #expect(reader.all("desc").first?.text == "d")
    }

    @Test("bar lengths are proportional to values, and a tiny value next to a huge one still shows")
    func barLengths() throws {
        let bars = [("A", 1000.0), ("B", 500), ("C", 250), ("D", 1)]
        let reader = try SVGReader.read(BarChart.svg(id: "b", title: "t", description: "d", bars: bars))
        let widths = reader.all("rect").compactMap { $0.attributes["width"].flatMap(Double.init) }
        #expect(widths.count == 4)
        #expect(abs(widths[1] / widths[0] - 0.5) < 0.01)
        #expect(abs(widths[2] / widths[0] - 0.25) < 0.01)
        #expect(widths[3] >= 2, "visible sliver")
    }

    @Test("labels from data are escaped inside the SVG", arguments: ["<script>alert('x')</script>", "Zoë & \"friends\"", "مكتبة ⁦rtl⁩", "🇮🇱 Israel"])
    func hostileLabels(label: String) throws {
        let svg = BarChart.svg(id: "h", title: "Top <countries>", description: label, bars: [(label, 3), ("Other", 1)])
        #expect(!svg.contains("<script>"))
        let reader = try SVGReader.read(svg)
        #expect(reader.texts.contains(label))
        #expect(reader.all("title").first?.text == "Top <countries>")
    }

    @Test(
        "a scalar that joins the next character into one grapheme cannot smuggle markup past the escaping",
        arguments: ["\u{600}<script>alert(1)</script>", "\u{600}\"><a href='x'>", "e\u{301}&amp;", "\u{110BD}<b>"])
    func prependedScalars(label: String) throws {
        // setup: U+0600 (and U+110BD) are "prepend" scalars: with the "<" after them they form one Character that is not "<"
        let bars = [(label, 3.0), ("Other", 1.0)]

        // act
        let svg = BarChart.svg(id: "p", title: label, description: label, bars: bars)

        // check
        #expect(!svg.contains("<script"), "no element from data")
        #expect(!svg.contains("<a "), "no element from data")
        #expect(!svg.contains("<b>"), "no element from data")
        let reader = try SVGReader.read(svg)
        #expect(reader.texts.contains(label))
        #expect(reader.all("title").first?.text == label)
        #expect(SVGWriter.escape(label) == ConsoleHTMLContentType().escapeText(label), "the same escaping as every {{…}} in the templates")
    }

    @Test("empty data, a single point and a period without decisions each render a clear picture")
    func edgeCases() throws {
        let empty = try SVGReader.read(LineChart.svg(id: "e", title: "t", description: "d", series: [LineSeries(name: "x", points: [])]))
        #expect(empty.texts.contains("No data yet"))
        let single = try SVGReader.read(
            LineChart.svg(
                id: "s", title: "t", description: "d", series: [LineSeries(name: "x", points: [(start, 21)])], tooFewMessage: "Only one day of data so far"))
        #expect(single.all("circle").isEmpty, "no lone dot on an axis of its own making")
        #expect(single.texts.joined(separator: " ") == "Only one day of data so far", "it says so in words")
        let quiet = try SVGReader.read(
            StackedBarChart.svg(
                id: "q", title: "t", description: "d", days: (0..<30).map { start.addingTimeInterval(Double($0) * day) },
                series: [(name: "Approved", values: Array(repeating: 0, count: 30))]))
        #expect(quiet.texts.contains("No decisions in this period"))
        let nothing = try SVGReader.read(
            Histogram.svg(id: "n", title: "t", description: "d", bins: [("< 1 day", 0)], color: "#000", emptyMessage: "Nothing waiting"))
        #expect(nothing.texts.contains("Nothing waiting"))
        let share = try SVGReader.read(ShareBar.svg(id: "p", title: "t", description: "d", part: 0, whole: 0, partLabel: "with", restLabel: "without"))
        #expect(share.texts.contains("No approved libraries yet"))
    }

    @Test("a phone's drawing is 340 wide with the same 11-unit labels, so shown at 330 px they stay about 11 px, and axis labels do not touch")
    func narrowDrawing() throws {
        // setup: three months of a growing line, 30 days of decisions, a full age histogram
        let days = (0..<30).map { start.addingTimeInterval(Double($0) * day) }
        let drawings = [
            LineChart.svg(
                id: "l", title: "t", description: "d",
                series: [LineSeries(name: "x", points: (0..<90).map { (start.addingTimeInterval(Double($0) * day), Double($0)) })], frame: .narrow),
            StackedBarChart.svg(
                id: "s", title: "t", description: "d", days: days, series: [(name: "Approved", values: days.indices.map { Double($0 % 4) })], frame: .narrow),
            Histogram.svg(
                id: "h", title: "t", description: "d", bins: StatisticsReport.ageBins.map { ($0.label, 3) }, color: "#000", emptyMessage: "", frame: .narrow),
            BarChart.svg(id: "b", title: "t", description: "d", bars: [("A very long country name indeed", 40), ("B", 3)], frame: .narrow),
        ]
        for svg in drawings {
            // act
            let reader = try SVGReader.read(svg)
            // check: the viewBox is the phone's width; labels keep their size; no two labels on one line overlap
            let root = try #require(reader.all("svg").first)
            #expect(root.attributes["viewBox"]?.split(separator: " ").dropFirst(2).first == "340")
            let labels = reader.all("text").filter { $0.attributes["text-anchor"] == "middle" && $0.attributes["fill"] == ChartPalette.muted }
            let sizes = reader.all("text").compactMap { $0.attributes["font-size"].flatMap(Double.init) }
            #expect(sizes.allSatisfy { $0 >= 10 }, "\(sizes)")
            let rows = Dictionary(grouping: labels) { $0.attributes["y"] ?? "" }
            for row in rows.values {
                let spans = row.compactMap { label -> (Double, Double)? in
                    guard let x = label.attributes["x"].flatMap(Double.init) else { return nil }
                    let half = Double(label.text.count) * 6.2 / 2  // 11 units: about 6.2 a character
                    return (x - half, x + half)
                }.sorted { $0.0 < $1.0 }
                for (left, right) in zip(spans, spans.dropFirst()) { #expect(left.1 <= right.0, "\(row.map(\.text))") }
                #expect(spans.allSatisfy { $0.0 >= 0 && $0.1 <= 340 }, "inside the drawing: \(row.map(\.text))")
            }
        }
    }

    @Test("a chart on the page carries both drawings, with ids of their own, and the narrow one names itself for screen readers too")
    func bothDrawings() throws {
        // setup, act
        let chart = Chart(
            id: "c", title: "T", description: "<script>", svg: { BarChart.svg(id: "c", title: "T", description: "<script>", bars: [("A", 1)], frame: $0) },
            table: ChartTable(columns: ["A"], rows: [["1"]]), csvHref: "/x")
        // check
        #expect(chart.svg.contains(#"aria-labelledby="c-title c-desc""#))
        #expect(chart.narrowSVG.contains(#"aria-labelledby="c-narrow-title c-narrow-desc""#))
        #expect(!chart.narrowSVG.contains("<script>"))
    }

    @Test("stacked bars add up to each day's total")
    func stacked() throws {
        let days = (0..<3).map { start.addingTimeInterval(Double($0) * day) }
        let reader = try SVGReader.read(
            StackedBarChart.svg(
                id: "s", title: "t", description: "d", days: days,
                series: [(name: "Approved", values: [4, 0, 2]), (name: "Rejected", values: [1, 0, 2])]))
        let heights = reader.all("rect").filter { $0.attributes["fill"] != "#f6f4ef" && $0.attributes["width"] != "12" }
            .compactMap { $0.attributes["height"].flatMap(Double.init) }
        #expect(heights.count == 4, "no rectangle for a zero")
        #expect(abs((heights[0] + heights[1]) / (heights[2] + heights[3]) - 5.0 / 4.0) < 0.02)
    }

    @Test("chart tables download as RFC 4180 CSV")
    func tableCSV() {
        let table = ChartTable(columns: ["Country", "Libraries"], rows: [["Korea, Republic of", "15"], ["\"Quoted\"", "1"]])
        #expect(table.csv == "Country,Libraries\r\n\"Korea, Republic of\",15\r\n\"\"\"Quoted\"\"\",1\r\n")
    }
}
