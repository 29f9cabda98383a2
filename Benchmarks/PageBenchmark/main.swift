import ConsoleServer
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

// The page benchmark's console (see scripts/benchmark-pages.sh and docs/benchmarks.md):
//   page-benchmark PAGES-DIRECTORY PORT DATABASE BACKEND-URL
// runs the console as `console serve` does (mirror on, watcher off, CONSOLE_RECENT_PAGE_LIFETIME
// honoured), plus each saved page `NAME.html` of PAGES-DIRECTORY answered as a constant:
// `GET /benchmark/constant/NAME` behind the same middleware and session check as every page
// (the baseline a rendered page is compared to), `GET /benchmark/open/NAME` to anyone, as
// `/healthz` is (the baseline the session check is compared to). These routes live here only:
// the console itself never answers them.

/// The saved pages, read once at start-up, answered as a page is: HTML, UTF-8; a name not saved is a 404.
struct ConstantPages: Sendable {
    private let pages: [String: String]

    init(directory: String) {
        var pages: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".html") {
            if let bytes = FileManager.default.contents(atPath: directory + "/" + name) {
                pages[String(name.dropLast(".html".count))] = String(decoding: bytes, as: UTF8.self)
            }
        }
        self.pages = pages
    }

    func answer(_ context: ConsoleRequestContext) throws -> Response {
        guard let name = context.parameters.get("name"), let page = pages[name] else { throw HTTPError(.notFound) }
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }
}

func run(_ arguments: [String]) async throws {
    guard arguments.count == 5, let port = Int(arguments[2]), let backendURL = URL(string: arguments[4]) else {
        FileHandle.standardError.write(Data("usage: page-benchmark PAGES-DIRECTORY PORT DATABASE BACKEND-URL\n".utf8))
        exit(2)
    }
    let constants = ConstantPages(directory: arguments[1])
    let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let lifetime = ProcessInfo.processInfo.environment["CONSOLE_RECENT_PAGE_LIFETIME"].flatMap(Int.init) ?? 1
    let configuration = ConsoleConfiguration(
        port: port, databasePath: arguments[3], backendURL: backendURL,
        templatesDirectory: checkout.appendingPathComponent("Templates").path, publicDirectory: checkout.appendingPathComponent("Public").path,
        recentPageLifetime: TimeInterval(lifetime))
    var logger = Logger(label: "page-benchmark")
    logger.logLevel = .error
    let app = try await buildConsoleApplication(
        configuration: configuration, logger: logger,
        additionalRoutes: AdditionalRoutes(
            signedIn: { staff in staff.get("/benchmark/constant/:name") { _, context in try constants.answer(context) } },
            open: { router in router.get("/benchmark/open/:name") { _, context in try constants.answer(context) } }))
    let group = ServiceGroupConfiguration(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    try await ServiceGroup(configuration: group).run()
}

try await run(CommandLine.arguments)
