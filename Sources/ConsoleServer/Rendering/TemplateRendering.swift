import Mustache

/// One page being rendered: the nodes of `TemplateLibrary`'s templates written into one string
/// that grows in place, with the context stack pushed and popped rather than copied per section.
/// What it writes is what swift-mustache 2 writes for the same model (its lookup up the context
/// stack, its truthiness, its indentation of partials); the speed comes from doing the same with
/// less: names split once at parse time, each stacked object asked once whether it answers
/// lookups itself (`MustacheParent`), text escaped straight into the page, and list items that
/// are `KeyedFragment`s written from `KeptFragments` when an equal item was written before.
struct TemplateRendering {
    /// An object on the context stack, with the answer to "does it answer lookups itself" kept.
    private enum Frame {
        case parent(any MustacheParent)
        case reflected(Any)

        init(_ object: Any) {
            self = if let parent = object as? any MustacheParent { .parent(parent) } else { .reflected(object) }
        }

        var object: Any {
            switch self {
            case .parent(let parent): parent
            case .reflected(let object): object
            }
        }

        func child(named name: String) -> Any? {
            switch self {
            case .parent(let parent): parent.child(named: name)
            case .reflected(let object): Self.reflectedChild(named: name, of: object)
            }
        }

        static func child(named name: String, of object: Any) -> Any? {
            if let parent = object as? any MustacheParent { return parent.child(named: name) }
            return reflectedChild(named: name, of: object)
        }

        /// A stored property by its label, optionals unwrapped: how swift-mustache reads a plain value.
        private static func reflectedChild(named name: String, of object: Any) -> Any? {
            guard let value = Mirror(reflecting: object).children.first(where: { $0.label == name })?.value else { return nil }
            let mirror = Mirror(reflecting: value)
            guard mirror.displayStyle == .optional else { return value }
            return mirror.children.first?.value
        }
    }

    private let templates: [String: [TemplateNode]]
    private let kept: KeptFragments?
    private var stack: [Frame]
    /// While a kept item is written: its frame's place on the stack. A lookup that reaches below
    /// it reads the page around the item, which the fragment's key does not cover.
    private var keptItemFrame: Int?
    /// Whether the item being written read anything outside itself (`keptItemFrame`): then its
    /// fragment is written but not kept.
    private var leftKeptItem = false
    private(set) var output = ""

    init(templates: [String: [TemplateNode]], kept: KeptFragments?, model: Any, expectedSize: Int) {
        self.templates = templates
        self.kept = kept
        stack = [Frame(model)]
        stack.reserveCapacity(8)
        output.reserveCapacity(expectedSize)
    }

    /// Writes `nodes`; `indentation` starts each line a partial alone on its line writes,
    /// `overrides` are the blocks the page gives its parent.
    mutating func write(_ nodes: [TemplateNode], indentation: String, overrides: [String: [TemplateNode]]) {
        guard !indentation.isEmpty else {
            for node in nodes { write(node, indentation: indentation, overrides: overrides) }
            return
        }
        // As swift-mustache indents: a node's output that starts a line gets the indentation
        // (only at node boundaries, so a text node's inner lines are left as they are). Only a
        // partial alone on an indented line comes here.
        let start = output.utf8.count
        for node in nodes {
            var written = ""
            swap(&written, &output)
            write(node, indentation: indentation, overrides: overrides)
            swap(&written, &output)
            if !written.isEmpty, endsLine(after: start) { output += indentation }
            output += written
        }
    }

    /// Whether what was written since `start` ends with a line feed on its own (swift-mustache
    /// compares the last Character, so CR LF, one Character, does not count).
    private func endsLine(after start: Int) -> Bool {
        let bytes = output.utf8
        guard bytes.count > start, bytes.last == 0x0A else { return false }
        guard bytes.count - 1 > start else { return true }
        return bytes[bytes.index(bytes.endIndex, offsetBy: -2)] != 0x0D
    }

    private mutating func write(_ node: TemplateNode, indentation: String, overrides: [String: [TemplateNode]]) {
        switch node {
        case .text(let text):
            output += text
        case .variable(let name, let escaped):
            guard let value = value(of: name) else { return }
            if let text = value as? String {
                if escaped { ConsoleHTMLContentType.escape(text, into: &output) } else { output += text }
            } else {
                let text = String(describing: Self.unwrapped(value))
                if escaped { ConsoleHTMLContentType.escape(text, into: &output) } else { output += text }
            }
        case .section(let name, let body, let inverted, let number):
            let value = value(of: name)
            if inverted {
                writeInverted(body, for: value, indentation: indentation, overrides: overrides)
            } else {
                writeSection(body, number: number, for: value, indentation: indentation, overrides: overrides)
            }
        case .blockDefinition:
            // Collected into the parent's overrides at parse time; never left among nodes to write.
            break
        case .blockExpansion(let name, let defaultBody, let indented):
            // What a block writes is the page's choice, not the item's.
            if keptItemFrame != nil { leftKeptItem = true }
            write(overrides[name] ?? defaultBody, indentation: indentation + indented, overrides: overrides)
        case .partial(let name, let indented, let partialOverrides):
            guard let partial = templates[name] else { return }
            // The outermost override of a block wins, as in swift-mustache.
            let merged = partialOverrides.map { overrides.merging($0) { outer, _ in outer } } ?? overrides
            write(partial, indentation: indented.map { indentation + $0 } ?? indentation, overrides: merged)
        }
    }

    private mutating func writeSection(_ body: [TemplateNode], number: Int, for value: Any?, indentation: String, overrides: [String: [TemplateNode]]) {
        guard let value else { return }
        if let flag = value as? Bool {
            if flag { write(body, indentation: indentation, overrides: overrides) }
            return
        }
        // A model that answers lookups itself is no list (none of ours is both): asked first, it
        // spares the most common section the costlier cast to a sequence.
        let frame = Frame(value)
        if case .reflected = frame, let list = value as? any MustacheSequence {
            for item in list as any Sequence {
                if let kept, keptItemFrame == nil, let keyed = item as? any KeyedFragment {
                    writeKept(keyed, section: number, body: body, in: kept, indentation: indentation, overrides: overrides)
                    continue
                }
                stack.append(Frame(item))
                write(body, indentation: indentation, overrides: overrides)
                stack.removeLast()
            }
        } else {
            stack.append(frame)
            write(body, indentation: indentation, overrides: overrides)
            stack.removeLast()
        }
    }

    /// `item` as `body` writes it: the kept fragment for an equal item under this section, or
    /// written now and kept, unless it read something outside itself.
    private mutating func writeKept(
        _ item: some KeyedFragment, section: Int, body: [TemplateNode], in kept: KeptFragments, indentation: String, overrides: [String: [TemplateNode]]
    ) {
        let key = KeptFragments.Key(section: section, indentation: indentation, item: item)
        if let html = kept.html(for: key) { return output += html }
        // Written on its own: a body's output depends only on what it writes itself, never on
        // the page before it (indentation looks back only as far as the body's own start).
        var fragment = ""
        swap(&fragment, &output)
        keptItemFrame = stack.count
        leftKeptItem = false
        stack.append(.parent(item))
        write(body, indentation: indentation, overrides: overrides)
        stack.removeLast()
        keptItemFrame = nil
        swap(&fragment, &output)
        if !leftKeptItem { kept.keep(fragment, for: key) }
        output += fragment
    }

    private mutating func writeInverted(_ body: [TemplateNode], for value: Any?, indentation: String, overrides: [String: [TemplateNode]]) {
        guard let value else { return write(body, indentation: indentation, overrides: overrides) }
        if let flag = value as? Bool {
            if !flag { write(body, indentation: indentation, overrides: overrides) }
        } else if let list = value as? any MustacheSequence {
            var items = (list as any Sequence).makeIterator()
            guard items.next() == nil else { return }
            stack.append(Frame(value))
            write(body, indentation: indentation, overrides: overrides)
            stack.removeLast()
        }
    }

    /// What `name` stands for: its first part looked up the stack from the top, the rest inside it.
    private mutating func value(of name: TemplateName) -> Any? {
        switch name.kind {
        case .current:
            return stack.last?.object
        case .anchored:
            guard let top = stack.last else { return nil }
            return Self.value(of: name.parts[...], in: top.object)
        case .stack:
            guard let first = name.parts.first else { return nil }
            for index in stack.indices.reversed() {
                if let keptItemFrame, index < keptItemFrame { leftKeptItem = true }
                if let found = stack[index].child(named: first) {
                    return Self.value(of: name.parts.dropFirst(), in: found)
                }
            }
            return nil
        }
    }

    private static func value(of parts: ArraySlice<String>, in object: Any) -> Any? {
        var object = object
        for part in parts {
            guard let child = Frame.child(named: part, of: object) else { return nil }
            object = child
        }
        return object
    }

    /// An optional kept inside `Any` is written as its value, as swift-mustache does.
    private static func unwrapped(_ value: Any) -> Any {
        guard let optional = value as? any TemplateOptional else { return value }
        return optional.wrappedValue ?? value
    }
}

/// An optional seen through `Any`.
private protocol TemplateOptional {
    var wrappedValue: Any? { get }
}

extension Optional: TemplateOptional {
    fileprivate var wrappedValue: Any? { self }
}
