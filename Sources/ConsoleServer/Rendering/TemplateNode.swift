/// One piece of a parsed template (`TemplateParser`): what swift-mustache's tokens are, with
/// each name split at its dots once, at start-up, rather than on every lookup of every row.
indirect enum TemplateNode: Sendable {
    case text(String)
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{&name}}` (as it is).
    case variable(TemplateName, escaped: Bool)
    /// `{{#name}}…{{/name}}`, or `{{^name}}…{{/name}}` when `inverted`. `number` is the
    /// section's own among every section parsed in the process: what its kept rows are kept under.
    case section(TemplateName, body: [TemplateNode], inverted: Bool, number: Int)
    /// `{{$name}}…{{/name}}` inside a parent's `{{<parent}}…{{/parent}}`: what the page puts in the parent's block.
    case blockDefinition(String, body: [TemplateNode])
    /// `{{$name}}…{{/name}}` in a parent: the page's override if it has one, else `default`.
    case blockExpansion(String, default: [TemplateNode], indentation: String)
    /// `{{> name}}`, or `{{< name}}` with the blocks it overrides. `indentation` is set for a
    /// partial alone on its line: every line it renders starts with it.
    case partial(String, indentation: String?, overrides: [String: [TemplateNode]]?)
}

/// A name as a template writes it: `.` (the current object), `a.b.c` (looked up the context
/// stack by `a`, then inside it), or `.a.b` (inside the current object only).
struct TemplateName: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case current
        case stack
        case anchored
    }

    let kind: Kind
    let parts: [String]
    /// As written: a section's end must repeat it exactly.
    let text: String

    init(_ text: String) {
        self.text = text
        // As swift-mustache splits: empty parts between dots are dropped.
        parts = text.split(separator: ".").map(String.init)
        kind = text == "." ? .current : text.first == "." ? .anchored : .stack
    }
}
