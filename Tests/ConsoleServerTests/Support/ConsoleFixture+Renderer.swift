import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport

@testable import ConsoleServer

extension ConsoleFixture {
    /// Runs the console as `withConsole` does, but rendering its pages with `renderer`
    /// (e.g. one loaded from a temporary template directory that lacks a page); `configure`
    /// adjusts the configuration first.
    static func withConsole<Result: Sendable>(
        renderer: @escaping @Sendable () async throws -> PageRenderer,
        configure: @Sendable (inout ConsoleConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (Browser, SandboxFixture, TemporaryDirectory) async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try await SandboxFixture.run(databasePath: directory.path("sandbox.sqlite")) { sandbox in
            var configuration = configuration(backendURL: sandbox.baseURL, directory: directory)
            configure(&configuration)
            // Loaded before the dependencies: once their client exists, only its service may end it.
            let pages = try await renderer()
            var dependencies = try await makeDependencies(configuration: configuration, logger: quietLogger)
            dependencies.renderer = pages
            let app = Application(
                router: buildRouter(dependencies: dependencies),
                configuration: .init(address: .hostname(configuration.host, port: 0), serverName: "BookCornersConsole"),
                services: [dependencies.client, dependencies.runner],
                logger: quietLogger)
            return try await withMirror(.filled, directory: directory, backendURL: sandbox.baseURL) { fill in
                try await app.test(.live) { client in
                    try await body(Browser(client: client, afterSignIn: fill), sandbox, directory)
                }
            }
        }
    }
}
