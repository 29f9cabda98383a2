import Foundation
import Hummingbird

/// The templates, loaded once at start-up: a missing template is a start-up error. They are
/// Mustache, rendered by our own `TemplateLibrary`, which writes the bytes swift-mustache wrote
/// at a fraction of the cost (docs/benchmarks.md, issue 48).
struct PageRenderer: Sendable {
    private let library: TemplateLibrary

    static let requiredTemplates = [
        "layout", "sign-in", "dashboard", "libraries", "library-detail", "reports", "report-detail", "photos", "photo-viewer", "concern-figures", "error",
        "bulk-confirm",
        "reject-confirm",
        "outbox", "outbox-message", "outbox-confirm", "devices", "audit", "audit-entry", "audit-summary", "statistics", "partials/chart",
        "take-over-confirm", "decide-anyway", "oncall",
        // On call: hand-offs
        "handoffs", "handoff", "partials/handoff-digest",
        // On call: alerts
        "on-call-alerts",
        // Issue 21: a reversal's confirmation, a decision kept through an ended session
        "reverse-confirm", "unsent-work",
    ]

    /// Loads every template in `directory`; `required` names those that must be there
    /// (all pages, except in a test that wants a render to fail at request time); `keptRows`
    /// queue rows' HTML are kept per generation (`KeptFragments`).
    init(directory: String, required: [String] = requiredTemplates, keptRows: Int = KeptFragments.standardCapacity) async throws {
        library = try TemplateLibrary(directory: directory, keptFragmentCapacity: keptRows)
        for name in required where !library.has(name) {
            throw PageRendererError.missingTemplate(name, directory: directory)
        }
        try Self.checkTemplates(directory: directory, library: library)
    }

    /// How many queue rows' HTML are kept now (`KeptFragments`).
    var keptRowCount: Int { library.kept.count }

    /// The required templates not loaded: none once start-up succeeded (readiness asks).
    func missingTemplates() -> [String] {
        Self.requiredTemplates.filter { !library.has($0) }
    }

    /// Every template must select our escaping; one that forgot would still escape (with the
    /// library's default), but slowly, so this is a start-up error rather than a silent cost.
    /// Every partial (`{{> name}}`) and parent (`{{< name}}`) a template uses must be loaded
    /// too: swift-mustache renders a missing one as nothing, a page with a hole and a 200.
    private static func checkTemplates(directory: String, library: TemplateLibrary) throws {
        let pragma = "{{% CONTENT_TYPE: \(ConsoleHTMLContentType.name) }}"
        // Pages at the top, partials in `partials/`: swift-mustache names each by its path.
        let files = FileManager.default.enumerator(atPath: directory)?.allObjects.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".mustache") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            guard text.hasPrefix(pragma) else { throw PageRendererError.missingPragma(file) }
            for reference in text.matches(of: #/\{\{\s*[<>]\s*([A-Za-z0-9_\-/]+)\s*\}\}/#) where !library.has(String(reference.1)) {
                throw PageRendererError.missingPartial(String(reference.1), usedBy: file)
            }
        }
    }

    /// Renders `model` with `template`. A render that produces nothing throws rather than
    /// answering an empty page: the error page middleware turns it into a 500 with the request id.
    func render(_ model: Any, with template: String, status: HTTPResponse.Status = .ok) throws(PageRendererError) -> HTML {
        guard let html = library.render(model, withTemplate: template) else { throw .renderFailed(template) }
        return HTML(html: html, status: status)
    }
}

enum PageRendererError: Error, Equatable, CustomStringConvertible {
    case missingTemplate(String, directory: String)
    case missingPragma(String)
    case missingPartial(String, usedBy: String)
    /// Rendering a page failed at request time (its template is not loaded).
    case renderFailed(String)

    var description: String {
        switch self {
        case .missingTemplate(let name, let directory): "Template \(name).mustache is missing from \(directory)."
        case .missingPragma(let file): "Template \(file) must start with {{% CONTENT_TYPE: ConsoleHTML }}."
        case .missingPartial(let name, let file): "Template \(file) uses \(name).mustache, which is missing."
        case .renderFailed(let name): "Template \(name) did not render (it is not loaded)."
        }
    }
}
