import Foundation
import Hummingbird
import Mustache

/// The templates, loaded once at start-up: a missing template is a start-up error.
struct PageRenderer: Sendable {
    private let library: MustacheLibrary

    static let requiredTemplates = [
        "layout", "sign-in", "dashboard", "libraries", "library-detail", "reports", "photos", "error",
    ]

    init(directory: String) async throws {
        library = try await MustacheLibrary(directory: directory)
        for name in Self.requiredTemplates where library.getTemplate(named: name) == nil {
            throw PageRendererError.missingTemplate(name, directory: directory)
        }
    }

    func render(_ model: Any, with template: String, status: HTTPResponse.Status = .ok) -> HTML {
        HTML(html: library.render(model, withTemplate: template) ?? "", status: status)
    }
}

enum PageRendererError: Error, CustomStringConvertible {
    case missingTemplate(String, directory: String)

    var description: String {
        switch self {
        case .missingTemplate(let name, let directory): "Template \(name).mustache is missing from \(directory)."
        }
    }
}
