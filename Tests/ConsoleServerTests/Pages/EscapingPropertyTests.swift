import Foundation
import ModerationVocabulary
import PropertyBased
import PropertySupport
import Testing

@testable import ConsoleServer

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Property checks of the HTML/SVG escaping every `{{…}}` and every chart label goes through:
/// no markup character survives raw, and the text unescapes back to itself.
@Suite("HTML and SVG escaping (property checks)")
struct EscapingPropertyTests {
    /// The five entities the escaper writes, and the characters they stand for.
    static let entities: [(entity: String, character: String)] = [("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"), ("&quot;", "\""), ("&#39;", "'")]

    /// Reads the five entities back, left to right; nil when a `&` starts none of them.
    static func unescaped(_ text: String) -> String? {
        var bytes = Substring(text).utf8[...]
        var result: [UInt8] = []
        while let byte = bytes.first {
            guard byte == UInt8(ascii: "&") else {
                result.append(byte)
                bytes = bytes.dropFirst()
                continue
            }
            guard let match = entities.first(where: { bytes.starts(with: $0.entity.utf8) }) else { return nil }
            result += match.character.utf8
            bytes = bytes.dropFirst(match.entity.utf8.count)
        }
        return String(decoding: result, as: UTF8.self)
    }

    @Test("escaped text has no raw < > \" ' nor control character, every & starts an entity, and it unescapes back to the input with its controls visible")
    func escapeRoundTrips() async throws {
        await propertyCheck(count: 1_000, input: HostileText.text(pieces: 0...20)) { text in
            // act
            let escaped = ConsoleHTMLContentType.escape(text)

            // check: by bytes, so a `<` inside a multi-scalar Character is seen too
            #expect(
                !escaped.utf8.contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") },
                "\(text.debugDescription) → \(escaped.debugDescription)")
            #expect(Self.unescaped(escaped) == ConsoleHTMLContentType.visible(text), "\(text.debugDescription) → \(escaped.debugDescription)")
            #expect(
                !ControlCharacters.contains(in: escaped) && !escaped.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) },
                "no raw control character or bidi override: \(escaped.debugDescription)")
            #expect(SVGWriter.escape(text) == escaped && ConsoleHTMLContentType().escapeText(text) == escaped, "one escaping everywhere")
        }
    }

    /// Characters XML 1.0 allows in text, and that its parsers keep as they are (a CR is read
    /// as a line feed): charts are embedded in HTML, whose parser takes any, but reading them
    /// back here goes through an XML parser.
    static func xmlSafe(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.filter { scalar in
                    (scalar.value >= 0x20 || scalar == "\t" || scalar == "\n") && scalar.value != 0xFFFE && scalar.value != 0xFFFF
                }))
    }

    @Test("a bar chart with hostile labels, title and description is well-formed SVG whose texts read back as given, controls made visible")
    func barChartTexts() async throws {
        let label = HostileText.text(pieces: 1...8).map(Self.xmlSafe)
        await propertyCheck(count: 150, input: label, label, label.array(of: 1...4)) { title, description, labels in
            // setup
            let bars = labels.enumerated().map { (label: $0.element, value: Double($0.offset + 1)) }

            // act
            let svg = BarChart.svg(id: "p", title: title, description: description, bars: bars)
            let reader = try SVGReader.read(svg)

            // check: only the elements a chart draws, whatever the data
            #expect(Set(reader.elements.map(\.name)).isSubset(of: ["svg", "title", "desc", "rect", "line", "text"]), "\(svg)")
            // Control characters and bidi overrides read back made visible (DEL as ␡), as on every page.
            #expect(reader.all("title").first?.text == ConsoleHTMLContentType.visible(title))
            #expect(reader.all("desc").first?.text == ConsoleHTMLContentType.visible(description))
            let tooltips = Set(reader.all("title").dropFirst().map(\.text))
            for bar in bars {
                let shown = ConsoleHTMLContentType.visible(bar.label)
                #expect(tooltips.contains("\(shown): \(NiceScale.label(bar.value))"), "\(bar.label.debugDescription) in \(tooltips)")
            }
        }
    }
}
