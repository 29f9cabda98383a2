import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 11 item 17: behind TLS the session cookie is `__Host-` prefixed and pages send HSTS.
@Suite("Behind a TLS proxy: HSTS and the __Host- cookie", .timeLimit(.minutes(3)))
struct TLSHardeningTests {
    @Test("behind TLS: a __Host- session cookie (Secure, Path=/, no Domain) and Strict-Transport-Security")
    func behindTLS() async throws {
        try await ConsoleFixture.withConsole(behindTLSProxy: true) { browser, _, _ in
            // act
            let signedIn = try await browser.signIn()
            // check
            let cookie = try #require(signedIn.headers[values: .setCookie].first { $0.hasPrefix("__Host-bc_session=") }, "\(signedIn.headers)")
            #expect(cookie.contains("Secure") && cookie.contains("Path=/") && !cookie.contains("Domain"))
            #expect(signedIn.headers[.strictTransportSecurity] == "max-age=31536000")
            let dashboard = try await browser.get("/")
            #expect(dashboard.status == .ok, "the prefixed cookie is the one read back")
        }
    }

    @Test("plain HTTP: no HSTS (it would lock browsers out of a plain-HTTP console)")
    func plainHTTP() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            let page = try await browser.get("/sign-in")
            #expect(page.headers[.strictTransportSecurity] == nil)
        }
    }
}
