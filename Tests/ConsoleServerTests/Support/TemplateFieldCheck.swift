import Foundation
import Mustache

/// Checks the names a template asks for against the page model that renders it, as
/// swift-mustache would look them up: a name the model does not answer renders as nothing, and
/// a name its own (inner) model does not answer is silently found on an outer one with the same
/// name. Reads the templates' tags itself (sections, inverted sections, partials, parents and
/// their blocks) and walks them with the model's values.
struct TemplateFieldCheck {
    /// One name a template asks for that the model cannot answer as meant.
    struct Finding: Hashable, CustomStringConvertible {
        let template: String
        let name: String
        let problem: String
        var description: String { "\(template): {{\(name)}} \(problem)" }
    }

    indirect enum Node {
        case name(String)
        case section(String, [Node])
        case inverted(String, [Node])
        case partial(String)
        case parent(String, blocks: [String: [Node]])
        case block(String, [Node])
    }

    /// The templates by name ("layout", "partials/pager"), read as trees of tags.
    let templates: [String: [Node]]
    private(set) var findings: Set<Finding> = []
    /// For each model type, the names templates asked of it.
    private(set) var asked: [String: Set<String>] = [:]
    /// For each model type met, the names it holds (its stored properties).
    private(set) var held: [String: Set<String>] = [:]

    init(templates: [String: String]) throws {
        self.templates = try templates.mapValues(Self.parse)
    }

    /// Reads every `.mustache` file under `directory`, named as swift-mustache names them.
    init(directory: String) throws {
        var texts: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".mustache") else { continue }
            texts[String(path.dropLast(".mustache".count))] = try String(contentsOfFile: directory + "/" + path, encoding: .utf8)
        }
        try self.init(templates: texts)
    }

    /// Walks `template` with `model` as its context.
    mutating func check(_ model: Any, with template: String) {
        guard let nodes = templates[template] else {
            findings.insert(Finding(template: template, name: ">", problem: "is not a template"))
            return
        }
        walk(nodes, stack: [model], blocks: [:], template: template)
    }

    /// Names models hold that no template walked so far asked for, by model type.
    var unasked: [String: Set<String>] {
        held.reduce(into: [:]) { result, entry in
            let left = entry.value.subtracting(asked[entry.key] ?? [])
            if !left.isEmpty { result[entry.key] = left }
        }
    }

    // MARK: Walking

    /// A block's content as a page fills it in, with the page's name for findings.
    private typealias Blocks = [String: (nodes: [Node], template: String)]

    private mutating func walk(_ nodes: [Node], stack: [Any], blocks: Blocks, template: String) {
        for node in nodes {
            switch node {
            case .name(let name):
                _ = resolve(name, stack: stack, template: template)
            case .section(let name, let children):
                guard let value = resolve(name, stack: stack, template: template, asSection: true) else { continue }
                if let flag = value as? Bool {
                    if flag { walk(children, stack: stack, blocks: blocks, template: template) }
                } else if let items = value as? [Any] {
                    for item in items { walk(children, stack: stack + [item], blocks: blocks, template: template) }
                } else {
                    walk(children, stack: stack + [value], blocks: blocks, template: template)
                }
            case .inverted(let name, let children):
                _ = resolve(name, stack: stack, template: template, asSection: true)
                walk(children, stack: stack, blocks: blocks, template: template)
            case .partial(let name):
                guard let partial = templates[name] else {
                    findings.insert(Finding(template: template, name: "> \(name)", problem: "names a partial that does not exist"))
                    continue
                }
                walk(partial, stack: stack, blocks: blocks, template: name)
            case .parent(let name, let overrides):
                guard let parent = templates[name] else {
                    findings.insert(Finding(template: template, name: "< \(name)", problem: "names a parent that does not exist"))
                    continue
                }
                let filled = overrides.mapValues { (nodes: $0, template: template) }
                walk(parent, stack: stack, blocks: blocks.merging(filled) { outer, _ in outer }, template: name)
            case .block(let name, let defaults):
                let (content, origin) = blocks[name] ?? (defaults, template)
                walk(content, stack: stack, blocks: blocks, template: origin)
            }
        }
    }

    /// The value `name` finds, as swift-mustache looks it up, recording a finding when:
    /// - no model answers it;
    /// - a model holds a field of that name with a value but does not answer it (a case missing
    ///   from `child(named:)`);
    /// - a nearer model's field of that name is nil, so swift-mustache uses an outer model's
    ///   field of the same name instead (the silent look-up up the context stack);
    /// - a nil field is printed as a value (`{{name}}` renders nothing), rather than tested as a section.
    private mutating func resolve(_ name: String, stack: [Any], template: String, asSection: Bool = false) -> Any? {
        guard name != ".", let top = stack.last else { return stack.last }
        let parts = name.split(separator: ".").map(String.init)
        var found: (index: Int, value: Any)?
        var nilIn: Any?
        for index in stack.indices.reversed() {
            if let value = child(parts[0], of: stack[index]) {
                found = (index, value)
                break
            }
            guard let held = Self.field(parts[0], of: stack[index]) else { continue }
            if Self.isAbsent(held) {
                nilIn = nilIn ?? stack[index]
            } else {
                findings.insert(
                    Finding(
                        template: template, name: name, problem: "is held by \(Self.typeName(stack[index])) but missing from its child(named:)"))
            }
        }
        if let nilIn {
            if let found {
                findings.insert(
                    Finding(
                        template: template, name: name,
                        problem: "is nil in \(Self.typeName(nilIn)), so the outer \(Self.typeName(stack[found.index]))'s is used: give it a value"))
            } else if !asSection || parts.count > 1 {
                findings.insert(Finding(template: template, name: name, problem: "is nil in \(Self.typeName(nilIn)) and renders nothing: give it a value"))
            }
            return found?.value
        }
        guard let (_, first) = found else {
            findings.insert(Finding(template: template, name: name, problem: "is answered by no model (\(Self.typeName(top)) nor any outer one)"))
            return nil
        }
        var value = first
        for part in parts.dropFirst() {
            guard let next = child(part, of: value) else {
                findings.insert(Finding(template: template, name: name, problem: "stops at \(part): \(Self.typeName(value)) does not answer it"))
                return nil
            }
            value = next
        }
        return value
    }

    /// The stored property `key` of `value`, if it has one, or of the `frame` it leaves shared
    /// names to (a queue list's `QueueListFrame`).
    private static func field(_ key: String, of value: Any) -> Any? {
        let children = Mirror(reflecting: value).children
        if let own = children.first(where: { $0.label == key }) { return own.value }
        guard let frame = children.first(where: { $0.label == "frame" })?.value, frame is MustacheParent else { return nil }
        return field(key, of: frame)
    }

    /// What `value` answers for `key`: its `child(named:)`, else its stored property of that name
    /// (swift-mustache's reflection); an absent optional is no answer.
    private mutating func child(_ key: String, of value: Any) -> Any? {
        let type = Self.typeName(value)
        let mirror = Mirror(reflecting: value)
        if value is MustacheParent || mirror.displayStyle == .struct || mirror.displayStyle == .class {
            held[type, default: []].formUnion(mirror.children.compactMap(\.label))
        }
        let answer: Any?
        if let parent = value as? MustacheParent {
            answer = parent.child(named: key)
        } else if let dictionary = value as? [String: Any] {
            answer = dictionary[key]
        } else {
            answer = mirror.children.first { $0.label == key }?.value
        }
        guard let answer, !Self.isAbsent(answer) else { return nil }
        asked[type, default: []].insert(key)
        return answer
    }

    private static func isAbsent(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }

    static func typeName(_ value: Any) -> String { String(describing: type(of: value)) }

    // MARK: Reading tags

    /// The tags of `text` as a tree: `{{name}}`, `{{{name}}}`, `{{&name}}`, `{{#name}}…{{/name}}`,
    /// `{{^name}}…{{/name}}`, `{{> partial}}`, `{{< parent}}{{$block}}…{{/block}}{{/parent}}`;
    /// comments and pragmas are skipped.
    static func parse(_ text: String) throws -> [Node] {
        let pattern = #/\{\{(\{)?\s*([#^/>$<!&%]?)\s*([^}]*?)\s*\}?\}\}/#
        var stack: [(kind: Character, name: String, children: [Node])] = [(" ", "", [])]
        for match in text.matches(of: pattern) {
            let sigil = match.2.first
            let name = String(match.3)
            switch sigil {
            case "!", "%": continue
            case "#", "^", "$", "<": stack.append((sigil ?? " ", name, []))
            case "/":
                guard stack.count > 1, let open = stack.popLast(), open.name == name else { throw ParseError.unbalanced(name) }
                let node: Node =
                    switch open.kind {
                    case "#": .section(name, open.children)
                    case "^": .inverted(name, open.children)
                    case "$": .block(name, open.children)
                    default:
                        .parent(
                            name,
                            blocks: open.children.reduce(into: [:]) { blocks, child in
                                if case .block(let block, let nodes) = child { blocks[block] = nodes }
                            })
                    }
                stack[stack.count - 1].children.append(node)
            case ">": stack[stack.count - 1].children.append(.partial(name))
            default: stack[stack.count - 1].children.append(.name(name))
            }
        }
        guard stack.count == 1 else { throw ParseError.unbalanced(stack.last?.name ?? "") }
        return stack[0].children
    }

    enum ParseError: Error { case unbalanced(String) }
}
