import Synchronization

/// Parses a Mustache template into `TemplateNode`s exactly as swift-mustache 2 parses it
/// (its standalone lines, indentation and inheritance rules), so the pages' bytes do not
/// change; `TemplateEngineEquivalenceTests` renders every page both ways. Transforms, lambdas
/// and changed delimiters are not supported: no template of ours uses them, and a template that
/// tries is a start-up error rather than a page that renders differently.
struct TemplateParser {
    /// Where a template cannot be parsed: the error, and the line it is on.
    struct Failure: Error, Equatable, CustomStringConvertible {
        let message: String
        let line: Int

        var description: String { "line \(line): \(message)" }
    }

    /// The only content type our templates may select (`ConsoleHTMLContentType`).
    static let contentType = "ConsoleHTML"

    /// Numbers sections across every parse, so no two sections share a number (`KeptFragments`).
    private static let sectionNumbers = Atomic(0)

    private struct State {
        var sectionName: String?
        /// Where the open section starts: what an unclosed one is reported at.
        var sectionLine = 0
        var newLine = true
        var isPartialDefinition = false
        var isPartialDefinitionTopLevel = false
        var partialDefinitionIndent: [Character]?

        func section(_ name: String, line: Int, newLine: Bool) -> State {
            var state = self
            state.sectionName = name
            state.sectionLine = line
            state.isPartialDefinitionTopLevel = false
            if !newLine { state.newLine = false }
            return state
        }

        func inheritancePartial(_ name: String, line: Int) -> State {
            var state = self
            state.sectionName = name
            state.sectionLine = line
            state.newLine = true
            state.isPartialDefinition = true
            state.isPartialDefinitionTopLevel = true
            return state
        }
    }

    private let characters: [Character]
    private var position = 0

    private init(_ text: String) {
        characters = Array(text)
    }

    /// The nodes of `text`, or the reason it is not a template we can render.
    static func parse(_ text: String) throws(Failure) -> [TemplateNode] {
        var parser = TemplateParser(text)
        return try parser.parse(State())
    }

    private var atEnd: Bool { position == characters.count }
    private var current: Character { atEnd ? "\0" : characters[position] }

    /// Lines counted up to a position, so finding a tag's line does not count from the top each time.
    private var counted = (position: 0, line: 1)

    private mutating func currentLine() -> Int {
        let end = min(position, characters.count)
        if end < counted.position { counted = (0, 1) }
        counted.line += characters[counted.position..<end].filter(\.isNewline).count
        counted.position = end
        return counted.line
    }

    private mutating func failure(_ message: String, line: Int? = nil) -> Failure {
        Failure(message: message, line: line ?? currentLine())
    }

    @discardableResult private mutating func read(while matches: (Character) -> Bool) -> [Character] {
        let start = position
        while !atEnd, matches(characters[position]) { position += 1 }
        return Array(characters[start..<position])
    }

    private mutating func read(_ text: String) -> Bool {
        let expected = Array(text)
        guard position + expected.count <= characters.count, Array(characters[position..<position + expected.count]) == expected else { return false }
        position += expected.count
        return true
    }

    private static func isBlank(_ character: Character) -> Bool { character == " " || character == "\t" }

    private mutating func parse(_ initial: State) throws(Failure) -> [TemplateNode] {
        var nodes: [TemplateNode] = []
        var state = initial
        var whiteSpaceBefore: [Character] = []
        while !atEnd {
            if state.newLine {
                let whiteSpace = read(while: Self.isBlank)
                if state.isPartialDefinition, !state.isPartialDefinitionTopLevel {
                    // Inside a block of a parent: its first line's indent is taken off every line.
                    if let indent = state.partialDefinitionIndent {
                        whiteSpaceBefore = Array(whiteSpace.dropFirst(indent.count))
                    } else {
                        state.partialDefinitionIndent = whiteSpace
                    }
                } else {
                    whiteSpaceBefore = whiteSpace
                }
            }
            let text = readUntilTagOrNewline()
            if current.isNewline {
                nodes.append(.text(String(whiteSpaceBefore + text + [current])))
                state.newLine = true
                position += 1
                continue
            }
            if !text.isEmpty {
                nodes.append(.text(String(whiteSpaceBefore + text)))
                whiteSpaceBefore = []
                state.newLine = false
            }
            if atEnd { break }
            var setNewLine = false
            let tagLine = currentLine()
            // Text before a tag that is not alone on its line stays in the output.
            func keepWhiteSpace() {
                if !whiteSpaceBefore.isEmpty { nodes.append(.text(String(whiteSpaceBefore))) }
            }
            switch current {
            case "#", "^":
                let inverted = current == "^"
                position += 1
                let name = try readName()
                if isStandalone(state) {
                    setNewLine = true
                } else {
                    keepWhiteSpace()
                    whiteSpaceBefore = []
                }
                let body = try parse(state.section(name, line: tagLine, newLine: setNewLine))
                nodes.append(.section(TemplateName(name), body: body, inverted: inverted, number: Self.sectionNumbers.add(1, ordering: .relaxed).newValue))
            case "/":
                position += 1
                let name = try readName()
                guard name == state.sectionName else { throw failure("{{/\(name)}} closes no open section") }
                if !isStandalone(state) { keepWhiteSpace() }
                return nodes
            case "!":
                position += 1
                guard let end = indexOf("}}") else { throw failure("a comment is not closed") }
                position = end + 2
                setNewLine = isStandalone(state)
            case "{", "&":
                keepWhiteSpace()
                whiteSpaceBefore = []
                let triple = current == "{"
                position += 1
                let name = try readName()
                if triple, !read("}") { throw failure("{{{\(name)}} is not closed with }}}") }
                nodes.append(.variable(TemplateName(name), escaped: false))
            case ">":
                position += 1
                let name = try readPartialName()
                keepWhiteSpace()
                if isStandalone(state) {
                    setNewLine = true
                    nodes.append(.partial(name, indentation: String(whiteSpaceBefore), overrides: nil))
                } else {
                    nodes.append(.partial(name, indentation: nil, overrides: nil))
                }
                whiteSpaceBefore = []
            case "<":
                position += 1
                let name = try readPartialName()
                keepWhiteSpace()
                if isStandalone(state) { setNewLine = true }
                var overrides: [String: [TemplateNode]] = [:]
                for node in try parse(state.inheritancePartial(name, line: tagLine)) {
                    switch node {
                    case .blockDefinition(let block, let body): overrides[block] = body
                    case .text: break
                    default: throw failure("only {{$block}} sections may be inside {{<\(name)}}")
                    }
                }
                nodes.append(.partial(name, indentation: String(whiteSpaceBefore), overrides: overrides))
                whiteSpaceBefore = []
            case "$":
                position += 1
                let name = try readName()
                if state.isPartialDefinitionTopLevel {
                    if isStandalone(state) { setNewLine = true }
                    nodes.append(.blockDefinition(name, body: try parse(state.section(name, line: tagLine, newLine: setNewLine))))
                } else {
                    keepWhiteSpace()
                    if isStandalone(state) { setNewLine = true }
                    let body = try parse(state.section(name, line: tagLine, newLine: setNewLine))
                    nodes.append(.blockExpansion(name, default: body, indentation: String(whiteSpaceBefore)))
                    whiteSpaceBefore = []
                }
            case "%":
                position += 1
                try readContentType()
                setNewLine = isStandalone(state)
            case "=":
                throw failure("changing the delimiters is not supported")
            default:
                keepWhiteSpace()
                whiteSpaceBefore = []
                nodes.append(.variable(TemplateName(try readName()), escaped: true))
            }
            state.newLine = setNewLine
        }
        if let open = state.sectionName { throw failure("{{#\(open)}} is not closed", line: state.sectionLine) }
        return nodes
    }

    private func indexOf(_ text: String) -> Int? {
        let expected = Array(text)
        var index = position
        while index + expected.count <= characters.count {
            if Array(characters[index..<index + expected.count]) == expected { return index }
            index += 1
        }
        return nil
    }

    /// Text up to a line break (left unread) or past the next `{{`.
    private mutating func readUntilTagOrNewline() -> [Character] {
        var text: [Character] = []
        while !atEnd {
            text += read { $0 != "\n" && $0 != "\r\n" && $0 != "{" }
            if current.isNewline { break }
            if current == "{" {
                if read("{{") { break }
                text.append("{")
                position += 1
            }
        }
        return text
    }

    private static let nameCharacters = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_?*")
    private static let partialNameCharacters = nameCharacters.union("/")

    private mutating func readName() throws(Failure) -> String {
        read(while: \.isWhitespace)
        let name = String(read { Self.nameCharacters.contains($0) })
        read(while: \.isWhitespace)
        if current == "(" || current == ")" { throw failure("transforms such as \(name)(…) are not supported") }
        guard read("}}") else { throw failure("a tag is not closed after '\(name)'") }
        return name
    }

    private mutating func readPartialName() throws(Failure) -> String {
        read(while: \.isWhitespace)
        if current == "*" { throw failure("dynamic partials are not supported") }
        let name = String(read { Self.partialNameCharacters.contains($0) })
        read(while: \.isWhitespace)
        guard read("}}") else { throw failure("a partial's tag is not closed after '\(name)'") }
        return name
    }

    private mutating func readContentType() throws(Failure) {
        read(while: \.isWhitespace)
        let variable = String(read { Self.nameCharacters.contains($0) })
        read(while: \.isWhitespace)
        guard read(":") else { throw failure("a pragma reads {{% CONTENT_TYPE: \(Self.contentType) }}") }
        read(while: \.isWhitespace)
        let value = String(read { Self.nameCharacters.contains($0) })
        read(while: \.isWhitespace)
        guard read("}}"), variable == "CONTENT_TYPE", value == Self.contentType else {
            throw failure("a pragma reads {{% CONTENT_TYPE: \(Self.contentType) }}")
        }
    }

    /// A tag alone on its line (only blanks around it): the line, its break included, leaves no text.
    private mutating func isStandalone(_ state: State) -> Bool {
        guard state.newLine else { return false }
        if atEnd { return true }
        var index = position
        while index < characters.count, Self.isBlank(characters[index]) { index += 1 }
        guard index < characters.count, characters[index].isNewline else { return false }
        position = index + 1
        return true
    }
}
