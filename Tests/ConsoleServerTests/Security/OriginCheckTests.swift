import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 11 item 16: a POST a browser marks as cross-site is refused, sign-in included.
@Suite("Cross-origin POSTs are refused", .timeLimit(.minutes(3)))
struct OriginCheckTests {
    @Test("a sign-in posted from another origin is refused with a clear 403 and starts no session")
    func crossOriginSignIn() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            browser.headers = [("Origin", "http://evil.example")]
            // act
            let answer = try await browser.signIn()
            // check
            #expect(answer.status == .forbidden, "\(answer)")
            #expect(answer.contains("This form came from another site"))
            #expect(browser.cookies["bc_session"] == nil)
        }
    }

    @Test("Sec-Fetch-Site: cross-site is refused even with a valid token; the session goes on")
    func crossSiteSignOut() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            try await browser.signIn()
            let dashboard = try await browser.get("/")
            // act
            browser.headers = [("Sec-Fetch-Site", "cross-site")]
            let refused = try await browser.post("/sign-out", form: [("csrf", dashboard.csrfToken ?? "")])
            // check
            #expect(refused.status == .forbidden, "\(refused)")
            #expect(refused.contains("This form came from another site"))
            browser.headers = []
            #expect(try await browser.get("/").status == .ok, "still signed in")
        }
    }

    @Test(
        "the console's own origin, same-origin fetches and clients that send neither header still work",
        arguments: [
            [("Origin", "http://localhost")], [("Sec-Fetch-Site", "same-origin"), ("Origin", "http://LOCALHOST:80")], [],
        ])
    func ownOrigin(headers: [(String, String)]) async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup: the test client's requests say `Host: localhost`
            browser.headers = headers
            // act
            let answer = try await browser.signIn()
            // check
            #expect(answer.status == .seeOther, "\(answer)")
            let dashboard = try await browser.get("/")
            #expect(try await browser.post("/sign-out", form: [("csrf", dashboard.csrfToken ?? "")]).location == "/sign-in?signed_out=1")
        }
    }
}
