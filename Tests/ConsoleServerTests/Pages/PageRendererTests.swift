import Foundation
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Page rendering: a page that cannot render is an error page, never an empty one", .timeLimit(.minutes(3)))
struct PageRendererTests {
    /// A copy of the repository's templates without `left`, and a renderer that loads it
    /// without requiring `left`, so the page fails at request time.
    private static func renderer(without left: String, in directory: TemporaryDirectory) async throws -> PageRenderer {
        let files = try FileManager.default.contentsOfDirectory(atPath: RepositoryPaths.templates)
        for file in files where file != "\(left).mustache" {
            try FileManager.default.copyItem(atPath: RepositoryPaths.templates + "/" + file, toPath: directory.path(file))
        }
        return try await PageRenderer(directory: directory.url.path, required: PageRenderer.requiredTemplates.filter { $0 != left })
    }

    @Test("a page whose template fails to render answers 500 with the error page and the request id")
    func failedRenderIsAnErrorPage() async throws {
        // setup: the dashboard's template is missing at request time
        let templates = try TemporaryDirectory()
        defer { templates.remove() }
        try await ConsoleFixture.withConsole(renderer: { try await Self.renderer(without: "dashboard", in: templates) }) { browser, _, _ in
            try await browser.signIn(next: "/audit")

            // act
            let page = try await browser.get("/")

            // check
            #expect(page.status == .internalServerError)
            #expect(page.contains("<h1>Something went wrong</h1>"))
            let requestID = try #require(page.html.range(of: "Request id: <code>").map { page.html[$0.upperBound...].prefix { $0 != "<" } })
            #expect(requestID.count >= 8, "the request id the maintainers can look up")
        }
    }

    @Test("a render of a template that is not loaded throws instead of answering an empty page")
    func renderThrows() async throws {
        // setup
        let templates = try TemporaryDirectory()
        defer { templates.remove() }
        let renderer = try await Self.renderer(without: "outbox", in: templates)

        // act
        var failure: PageRendererError?
        do {
            _ = try renderer.render(0, with: "outbox")
        } catch {
            failure = error
        }

        // check
        guard case .renderFailed("outbox") = try #require(failure) else {
            Issue.record("expected renderFailed(outbox), got \(String(describing: failure))")
            return
        }
    }

    @Test("a template that uses a missing partial stops start-up, naming both, instead of rendering a page with a hole")
    func missingPartialAtStartUp() async throws {
        // setup: the statistics page draws its charts with the chart partial, which is gone
        let templates = try TemporaryDirectory()
        defer { templates.remove() }
        let files = try FileManager.default.contentsOfDirectory(atPath: RepositoryPaths.templates)
        for file in files {
            try FileManager.default.copyItem(atPath: RepositoryPaths.templates + "/" + file, toPath: templates.path(file))
        }
        try FileManager.default.removeItem(atPath: templates.path("partials/chart.mustache"))

        // act
        var failure: (any Error)?
        do {
            _ = try await PageRenderer(directory: templates.url.path, required: PageRenderer.requiredTemplates.filter { $0 != "partials/chart" })
        } catch {
            failure = error
        }

        // check
        guard case .missingPartial("partials/chart", usedBy: "statistics.mustache") = try #require(failure as? PageRendererError) else {
            Issue.record("expected missingPartial(partials/chart, usedBy: statistics.mustache), got \(String(describing: failure))")
            return
        }
    }
}
