import Foundation
import Mustache
import TestSupport
import Testing

@testable import ConsoleServer

/// Every `{{name}}` and section in `Templates/` is answered by the page model that renders it,
/// by that model itself and not by an outer one that happens to hold the same name (swift-mustache
/// looks a name up the whole context stack); and every name a model holds is asked for by a template.
@Suite("Templates ask only for names their models answer")
struct TemplateFieldTests {
    @Test("every page model answers every name its template, its partials and its layout ask for, inside every section, itself and not through an outer model")
    func everyNameAnswered() throws {
        // setup
        var check = try TemplateFieldCheck(directory: RepositoryPaths.templates)
        // act
        for (template, model) in try PageModels.all() {
            check.check(model, with: template == "layout" ? "error" : template)
        }
        // check
        #expect(check.findings.isEmpty, "\(check.findings.map(\.description).sorted().joined(separator: "\n"))")
        // Listed, not failed: fields the code keeps for itself, and branches the fixed models do not take.
        let unasked = check.unasked.map { "\($0.key): \($0.value.sorted().joined(separator: ", "))" }.sorted()
        print("Held by page models, asked for by no template walked:\n  " + unasked.joined(separator: "\n  "))
    }

    /// A page with a list whose rows do not hold `title`, which the page does.
    private struct BrokenPage: MustacheParent {
        /// Holds `title` but forgot to answer it: the page's title would show in every row. Its
        /// `note` is nil: the page's note would show instead.
        struct Row: MustacheParent {
            let name: String
            let title: String
            let note: String?
            func child(named key: String) -> Any? {
                switch key {
                case "name": name
                case "note": note
                default: nil
                }
            }
        }

        let title: String
        let note: String
        let rows: [Row]
        func child(named key: String) -> Any? {
            switch key {
            case "title": title
            case "note": note
            case "rows": rows
            default: nil
            }
        }
    }

    @Test(
        "a deliberate break is caught: a name no model answers, a row's field missing from its answers, and a row's nil field, each found on the page around it instead"
    )
    func deliberateBreak() throws {
        // setup
        var check = try TemplateFieldCheck(templates: [
            "frame": "{{% CONTENT_TYPE: ConsoleHTML }}<title>{{title}}</title>{{$content}}{{/content}}",
            "page": "{{<frame}}{{$content}}{{missing}}{{#rows}}{{name}} {{title}} {{note}}{{/rows}}{{/content}}{{/frame}}",
        ])
        // act
        check.check(
            BrokenPage(title: "Libraries", note: "All waiting", rows: [.init(name: "Corner Books", title: "Corner Books, Rome", note: nil)]), with: "page")
        // check
        #expect(
            check.findings.map(\.description).sorted() == [
                "page: {{missing}} is answered by no model (BrokenPage nor any outer one)",
                "page: {{note}} is nil in Row, so the outer BrokenPage's is used: give it a value",
                "page: {{title}} is held by Row but missing from its child(named:)",
            ])
    }
}
