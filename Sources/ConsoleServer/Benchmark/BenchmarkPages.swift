import Foundation
import Hummingbird

/// Saved pages answered as constants, for `scripts/benchmark-pages.sh`: what a page costs
/// beyond writing its bytes, and what the session check costs beyond answering at all.
/// Read once at start-up; exists only when `CONSOLE_BENCHMARK_CONSTANT_DIR` is set.
struct BenchmarkPages: Sendable {
    private let pages: [String: String]

    init(directory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var pages: [String: String] = [:]
        for name in names where name.hasSuffix(".html") {
            if let bytes = FileManager.default.contents(atPath: directory + "/" + name) {
                pages[String(name.dropLast(".html".count))] = String(decoding: bytes, as: UTF8.self)
            }
        }
        self.pages = pages
    }

    func page(_ route: SiteURL.Route, _ context: ConsoleRequestContext) throws -> HTML {
        guard let name = route.value(in: context.parameters), let page = pages[name] else { throw ConsoleError.notFound }
        return HTML(html: page)
    }
}
