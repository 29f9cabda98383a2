import Foundation
import HummingbirdTesting
import TestSupport
import Testing

@testable import ConsoleServer

extension ConsoleFixture {
    /// A console on a loopback port against a fresh sandbox, its mirror filled, and a started
    /// headless Chromium (quit afterwards, whatever happens); `body` gets the console's origin.
    static func withBrowser(
        javaScript: Bool = true, mirror: MirrorStart = .filled,
        _ body: @escaping @Sendable (_ browser: WebDriver, _ console: String, SandboxFixture, TemporaryDirectory) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let app = try await buildConsoleApplication(
                configuration: configuration(backendURL: sandbox.baseURL, directory: directory), logger: quietLogger)
            try await app.test(.live) { client in
                if mirror == .filled { try await fillMirror(client: client, directory: directory, backendURL: sandbox.baseURL) }
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let browser = try WebDriver()
                do {
                    try await browser.start(javaScript: javaScript)
                    try await body(browser, console, sandbox, directory)
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }
}
