import Foundation

/// Every template of a directory, parsed once (`TemplateParser`), by its path without
/// `.mustache` (`layout`, `partials/pager`), as swift-mustache names them.
struct TemplateLibrary: Sendable {
    /// A template that did not parse: which file, and why.
    struct Failure: Error, CustomStringConvertible {
        let file: String
        let failure: TemplateParser.Failure

        var description: String { "Template \(file), \(failure)" }
    }

    let templates: [String: [TemplateNode]]
    /// List items written before (`KeyedFragment`), shared by every page rendered with these templates.
    let kept: KeptFragments
    /// Reserved for a page up front: most pages fit, so the page grows in place at most a few times.
    private static let expectedSize = 32_768

    /// `keptFragmentCapacity`: how many list items' HTML to keep per generation (`KeptFragments`); 0 writes every item every time.
    init(directory: String, keptFragmentCapacity: Int = KeptFragments.standardCapacity) throws {
        var templates: [String: [TemplateNode]] = [:]
        let files = FileManager.default.enumerator(atPath: directory)?.allObjects.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".mustache") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            do {
                templates[String(file.dropLast(".mustache".count))] = try TemplateParser.parse(text)
            } catch {
                throw Failure(file: file, failure: error)
            }
        }
        self.templates = templates
        kept = KeptFragments(capacity: keptFragmentCapacity)
    }

    func has(_ name: String) -> Bool { templates[name] != nil }

    /// `model` rendered with template `name`, or nil when there is no such template.
    func render(_ model: Any, withTemplate name: String) -> String? {
        guard let nodes = templates[name] else { return nil }
        var rendering = TemplateRendering(templates: templates, kept: kept.capacity > 0 ? kept : nil, model: model, expectedSize: Self.expectedSize)
        rendering.write(nodes, indentation: "", overrides: [:])
        return rendering.output
    }
}
