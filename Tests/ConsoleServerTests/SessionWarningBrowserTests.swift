@testable import ConsoleServer
import Foundation
import GRDB
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
                    // check: a live session stays, and the warning goes
                    var stayed: Any?
                    for _ in 0..<50 {
                        stayed = try await browser.execute("return document.querySelector('.session-warning') === null;")
                        if stayed as? Bool == true { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(stayed as? Bool == true, "the warning goes once the session is kept")

                    // act: the session ends behind the page's back (another console signed it out), then Stay signed in
                    try await browser.go(console + "/audit")
                    _ = try await browser.source(containing: "session-warning")
                    try await DatabaseQueue(path: directory.path("console.sqlite")).write { db in try db.execute(sql: "DELETE FROM session") }
                    try await Task.sleep(for: .milliseconds(2_200))
                    try await browser.click(".session-warning button")
                    // check: it says so instead of pretending
                    var said = ""
                    for _ in 0..<50 {
                        said = try await browser.execute("var w = document.querySelector('.session-warning'); return w ? w.textContent : '';") as? String ?? ""
                        if said.contains("already ended") { break }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    #expect(said.contains("Your session has already ended"), "\(said)")
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }
}
