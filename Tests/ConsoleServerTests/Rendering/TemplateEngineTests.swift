import Foundation
import Mustache
import TestSupport
import Testing

@testable import ConsoleServer

/// Our template engine (`TemplateLibrary`) against swift-mustache 2, the engine it replaced and
/// whose output the stored snapshots hold: the same templates and models must give the same bytes.
@Suite("Templates: our engine writes what swift-mustache writes", .timeLimit(.minutes(3)))
struct TemplateEngineTests {
    /// Both engines over one directory of templates.
    private struct Engines {
        let ours: TemplateLibrary
        let theirs: MustacheLibrary

        init(directory: String) async throws {
            ConsoleHTMLContentType.register()
            ours = try TemplateLibrary(directory: directory)
            theirs = try await MustacheLibrary(directory: directory)
        }

        func expectSame(_ model: Any, with template: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let expected = try #require(theirs.render(model, withTemplate: template), sourceLocation: sourceLocation)
            let written = try #require(ours.render(model, withTemplate: template), sourceLocation: sourceLocation)
            #expect(written == expected, "\(template): \(Snapshot.difference(expected: expected, actual: written))", sourceLocation: sourceLocation)
        }
    }

    /// Templates that use every construct the engine supports, in the places where the two
    /// engines could part: standalone lines, an indented partial whose values end lines (CR LF
    /// too), a parent whose blocks a child and a grandchild override, lookups that climb the stack.
    private static let templates: [String: String] = [
        "page": """
        {{% CONTENT_TYPE: ConsoleHTML }}
        {{<frame}}
          {{$title}}Page {{title}}{{/title}}
          {{$body}}
          <ul>
          {{#rows}}
            <li>{{name}} in {{title}}{{#tags}} [{{.}}]{{/tags}}{{^tags}} (no tags){{/tags}}</li>
            {{> partials/row}}
          {{/rows}}
          {{^rows}}<li>none</li>{{/rows}}
          </ul>
          {{! a comment alone on its line }}
          x {{! an inline comment }} y
            {{#flag}}
              flagged
            {{/flag}}
          {{^flag}}not flagged{{/flag}} {{#empty}}empty string is truthy{{/empty}} {{#zero}}zero is truthy: {{.}}{{/zero}}
          {{{raw}}} {{&raw}} {{raw}} {{nested.inner.name}} {{nested.missing}} {{#nested}}{{.inner.name}}{{/nested}} {{count}} {{ratio}}
          {{#missing}}never{{/missing}}{{^missing}}missing is falsy{{/missing}} {{#none}}never{{/none}}{{^none}}nil is falsy{{/none}}
          {{/body}}
        {{/frame}}
        """,
        "grandchild": """
        {{% CONTENT_TYPE: ConsoleHTML }}
        {{<page}}
        {{$title}}Grandchild wins{{/title}}
        {{/page}}
        """,
        "frame": """
        {{% CONTENT_TYPE: ConsoleHTML }}
        <html>
          <title>{{$title}}Default title{{/title}}</title>
          <body>
            {{$body}}default body{{/body}}
          </body>
        {{$footer}}
        <footer>{{title}}</footer>
        {{/footer}}
        </html>
        """,
        "partials/row": """
        {{% CONTENT_TYPE: ConsoleHTML }}
        <div>
          {{name}}
        {{#lines}}
          <p>{{.}}</p>
        {{/lines}}
        {{note}}
        </div>

        """,
    ]

    /// A model that answers lookups itself, as every page model does.
    struct Row: MustacheParent, Sendable {
        let name: String
        let tags: [String]
        let lines: [String]
        let note: String?

        func child(named key: String) -> Any? {
            switch key {
            case "name": name
            case "tags": tags
            case "lines": lines
            case "note": note
            default: nil
            }
        }
    }

    /// Plain values, read by reflection: what a model that does not answer lookups gets.
    struct Inner { let name: String }
    struct Nested { let inner: Inner }

    struct Page: MustacheParent {
        let rows: [Row]
        let title: String
        let flag: Bool

        func child(named key: String) -> Any? {
            switch key {
            case "rows": rows
            case "title": title
            case "flag": flag
            case "empty": ""
            case "zero": 0
            case "raw": "<b>&amp;</b>"
            case "nested": Nested(inner: Inner(name: "in <nest>"))
            case "count": 42
            case "ratio": 0.5
            case "none": String?.none
            default: nil
            }
        }
    }

    /// A temporary folder holding `templates`, each as `name.mustache`.
    private static func directory(_ templates: [String: String] = templates) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("partials"), withIntermediateDirectories: true)
        for (name, text) in templates {
            try Data(text.utf8).write(to: URL(fileURLWithPath: directory.path(name + ".mustache")))
        }
        return directory
    }

    @Test("every page model renders to the same bytes as with swift-mustache")
    func everyPage() async throws {
        let engines = try await Engines(directory: RepositoryPaths.templates)
        for (template, model) in try PageModels.all() {
            try engines.expectSame(model, with: template == "layout" ? "error" : template)
        }
        try engines.expectSame(try PageModels.dashboardQuiet(), with: "dashboard")
        try engines.expectSame(PageModels.handoffsNotOnCall(), with: "handoffs")
    }

    @Test(
        "standalone lines, an indented partial, parents overridden twice, stack lookups, reflection and truthiness render as swift-mustache renders them",
        arguments: [
            [],
            [Row(name: "<one>", tags: ["a", "b"], lines: ["first", "second"], note: "ends\r\n")],
            [
                Row(name: "one", tags: [], lines: [], note: nil), Row(name: "مكتبة 📚", tags: ["\u{202E}x"], lines: ["a\r\nb", "c\n"], note: "\n"),
                Row(name: "", tags: ["'\"&"], lines: [""], note: "last"),
            ],
        ])
    func constructs(rows: [Row]) async throws {
        let directory = try Self.directory()
        defer { directory.remove() }
        let engines = try await Engines(directory: directory.url.path)
        for flag in [false, true] {
            let page = Page(rows: rows, title: "T<i>tle", flag: flag)
            try engines.expectSame(page, with: "page")
            try engines.expectSame(page, with: "grandchild")
        }
    }

    /// A list item the engine may keep (`KeyedFragment`).
    struct KeptRow: KeyedFragment {
        let name: String
        let lines: [String]

        func child(named key: String) -> Any? {
            switch key {
            case "name": name
            case "lines": lines
            default: nil
            }
        }
    }

    struct KeptPage: MustacheParent {
        let rows: [KeptRow]
        let title: String

        func child(named key: String) -> Any? {
            switch key {
            case "rows": rows
            case "title": title
            default: nil
            }
        }
    }

    private static let keptTemplates: [String: String] = [
        // Rows alone, indented through a partial, and reading the page's title (never kept).
        "alone": "{{% CONTENT_TYPE: ConsoleHTML }}\n<ul>\n{{#rows}}\n  <li>{{name}}{{#lines}} [{{.}}]{{/lines}}</li>\n{{/rows}}\n</ul>\n",
        "indented": "{{% CONTENT_TYPE: ConsoleHTML }}\n<div>\n  {{> partials/rows}}\n</div>\n",
        "partials/rows": "{{% CONTENT_TYPE: ConsoleHTML }}\n{{#rows}}\n<p>{{name}}\n{{#lines}}\n{{.}}\n{{/lines}}\n</p>\n{{/rows}}\n",
        "reads-page": "{{% CONTENT_TYPE: ConsoleHTML }}\n{{#rows}}<li>{{name}} in {{title}}</li>{{/rows}}\n",
        "reads-missing": "{{% CONTENT_TYPE: ConsoleHTML }}\n{{#rows}}<li>{{name}}{{#flag}} flagged{{/flag}}</li>{{/rows}}\n",
    ]

    @Test("kept rows: an equal row is written from the kept HTML, byte for byte what swift-mustache writes; a row that reads the page around it is never kept")
    func keptRows() async throws {
        let directory = try Self.directory(Self.keptTemplates)
        defer { directory.remove() }
        let engines = try await Engines(directory: directory.url.path)
        let rows = [
            KeptRow(name: "<one>", lines: ["a\r\nb", "c"]), KeptRow(name: "مكتبة 📚", lines: []), KeptRow(name: "<one>", lines: ["a\r\nb", "c"]),
        ]

        // act: the same rows under two templates, twice each; then one row changed
        for template in ["alone", "indented"] {
            try engines.expectSame(KeptPage(rows: rows, title: "T"), with: template)
            try engines.expectSame(KeptPage(rows: rows, title: "T"), with: template)
        }
        // check: two distinct rows under each of the two sections, kept once each
        #expect(engines.ours.kept.count == 4)
        var changed = rows
        changed[1] = KeptRow(name: "مكتبة 📚", lines: ["now with a line"])
        try engines.expectSame(KeptPage(rows: changed, title: "T"), with: "alone")
        #expect(engines.ours.kept.count == 5, "the changed row is another key: written anew, the old one not used")

        // act: rows whose markup reads the page's title, or a name no row has (which the page could)
        for title in ["First <title>", "Second title"] {
            try engines.expectSame(KeptPage(rows: rows, title: title), with: "reads-page")
            try engines.expectSame(KeptPage(rows: rows, title: title), with: "reads-missing")
        }
        // check: the title changed on the second page; none of these rows was kept
        #expect(engines.ours.kept.count == 5)
        let second = try #require(engines.ours.render(KeptPage(rows: rows, title: "Second title"), withTemplate: "reads-page"))
        #expect(second.contains("in Second title") && !second.contains("First"))

        // act: a fragment put in by hand for an equal row (a newly built one) under the list's section
        let section = try #require(
            engines.ours.templates["alone"]?.lazy.compactMap { node -> Int? in
                guard case .section(let name, _, false, let number) = node, name.text == "rows" else { return nil }
                return number
            }.first)
        engines.ours.kept.keep(
            "  <li>kept, not written</li>\n", for: KeptFragments.Key(section: section, indentation: "", item: KeptRow(name: "مكتبة 📚", lines: [])))
        let fromKept = try #require(engines.ours.render(KeptPage(rows: rows, title: "T"), withTemplate: "alone"))
        // check: it is what the page shows for that row; the others are as written
        #expect(
            fromKept == "<ul>\n  <li>&lt;one&gt; [a\r\nb] [c]</li>\n  <li>kept, not written</li>\n  <li>&lt;one&gt; [a\r\nb] [c]</li>\n</ul>\n", "\(fromKept)")
    }

    @Test("kept rows: none are kept with a capacity of 0, and the older generation goes when the younger fills")
    func keptCapacity() throws {
        let none = KeptFragments(capacity: 0)
        let key = KeptFragments.Key(section: 1, indentation: "", item: KeptRow(name: "a", lines: []))
        none.keep("<li>a</li>", for: key)
        #expect(none.html(for: key) == nil && none.count == 0)

        let two = KeptFragments(capacity: 2)
        let keys = (0..<5).map { KeptFragments.Key(section: 1, indentation: "", item: KeptRow(name: "row \($0)", lines: [])) }
        for (index, key) in keys.enumerated() { two.keep("<li>\(index)</li>", for: key) }
        #expect(two.count <= 4, "two generations of two")
        #expect(two.html(for: KeptFragments.Key(section: 1, indentation: "", item: KeptRow(name: "row 4", lines: []))) == "<li>4</li>", "found by an equal key")
        #expect(two.html(for: keys[0]) == nil, "the oldest went with its generation")
        #expect(two.html(for: KeptFragments.Key(section: 2, indentation: "", item: KeptRow(name: "row 4", lines: []))) == nil, "another section")
        #expect(two.html(for: KeptFragments.Key(section: 1, indentation: "  ", item: KeptRow(name: "row 4", lines: []))) == nil, "another indentation")
    }

    @Test(
        "a template using what the engine does not do stops start-up, naming the file and line",
        arguments: ["{{name(x)}}", "{{=<% %>=}}", "{{#open}}", "{{> *dynamic}}"])
    func unsupported(tag: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("{{% CONTENT_TYPE: ConsoleHTML }}\n<p>\n\(tag)\n</p>\n".utf8).write(to: URL(fileURLWithPath: directory.path("page.mustache")))

        let failure = #expect(throws: TemplateLibrary.Failure.self) { try TemplateLibrary(directory: directory.url.path) }

        #expect(failure?.file == "page.mustache")
        #expect(failure?.failure.line == 3)
    }

    @Test("a template edited on disk changes the page the console serves: the markup lives in Templates/, not in Swift")
    func editedTemplate() async throws {
        // setup: a copy of the templates whose libraries list has another heading
        let templates = try TemporaryDirectory()
        defer { templates.remove() }
        for file in try FileManager.default.subpathsOfDirectory(atPath: RepositoryPaths.templates) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: RepositoryPaths.templates + "/" + file, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                try FileManager.default.createDirectory(atPath: templates.path(file), withIntermediateDirectories: true)
            } else {
                try FileManager.default.copyItem(atPath: RepositoryPaths.templates + "/" + file, toPath: templates.path(file))
            }
        }
        let list = templates.path("libraries.mustache")
        let original = try String(contentsOfFile: list, encoding: .utf8)
        try #require(original.contains("<h1>Libraries</h1>"))
        try Data(original.replacingOccurrences(of: "<h1>Libraries</h1>", with: "<h1>Libraries, as the template now says</h1>").utf8)
            .write(to: URL(fileURLWithPath: list))

        try await ConsoleFixture.withConsole(configure: { $0.templatesDirectory = templates.url.path }) { browser, _, _ in
            try await browser.signIn(next: "/libraries")

            // act
            let page = try await browser.get("/libraries")

            // check
            #expect(page.status == .ok)
            #expect(page.contains("<h1>Libraries, as the template now says</h1>"))
            #expect(page.contains("data-row"), "the rows still render")
        }
    }
}
