@testable import ConsoleServer
import Foundation
import HummingbirdTesting
import Sandbox
import Testing
import TestSupport

/// Issue 21: a few minutes before an idle session ends, the page says so (script), and times
/// of day read in the viewer's zone; without script the footer says when it ends.
@Suite("In a real browser: the session's end is announced", .serialized, .timeLimit(.minutes(3)))
struct SessionWarningBrowserTests {
    @Test("with 4 minutes of idle time left, a warning with a Stay signed in button shows; the footer's end time is in local time")
    func warningBeforeTheIdleTimeout() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run { sandbox in
            let app = try await buildConsoleApplication(
                configuration: ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory, idleTimeout: 4 * 60),
                logger: ConsoleFixture.quietLogger)
            try await app.test(.live) { client in
                let console = "http://127.0.0.1:\(try #require(client.port))"
                let browser = try WebDriver()
                do {
                    // setup
                    try await browser.start()
                    try await browser.signInAsStaff(console: console)
                    // act
                    try await browser.go(console + "/audit")
                    let page = try await browser.source(containing: "session-warning")
                    // check
                    #expect(page.contains("Your session ends in 4 minutes unless you open a page or stay signed in."), "\(page.suffix(2000))")
                    #expect(page.contains(">Stay signed in</button>"))
                    let footer = try #require(page.range(of: #"<span class="session-end""#).map { String(page[$0.lowerBound...].prefix(400)) })
                    #expect(footer.contains("Signed in until <time") && !footer.contains(" UTC</time>"), "\(footer)")
                    try await browser.click(".session-warning button")
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }
}
