import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 11 item 14: behind trusted proxies the client is read from the forwarding headers.
@Suite("The client address behind trusted proxies", .timeLimit(.minutes(3)))
struct TrustedProxyTests {
    @Test(
        "X-Forwarded-For is walked right to left, skipping trusted hops (IPv4 and IPv6 ranges)",
        arguments: [
            // peer, X-Forwarded-For, expected client
            ("10.0.0.5", "203.0.113.7, 10.9.9.9", "203.0.113.7"),
            ("10.0.0.5", "198.51.100.1, 203.0.113.7, 10.9.9.9", "203.0.113.7"),
            ("fd00::1", "2001:db8::42, fd12::7", "2001:db8::42"),
            ("::ffff:10.0.0.5", "203.0.113.7:4711", "203.0.113.7"),
            ("10.0.0.5", "10.1.1.1, 10.2.2.2", "10.1.1.1"),
            ("10.0.0.5", "junk, 10.2.2.2", "10.2.2.2"),
            ("192.0.2.99", "203.0.113.7", "192.0.2.99"),
        ])
    func walk(peer: String, forwardedFor: String, expected: String) throws {
        // setup
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8", "fd00::/8"])
        // act
        let client = proxies.client(peer: peer, forwardedFor: forwardedFor.split(separator: ",").map(String.init))
        // check
        #expect(client == expected)
    }

    @Test("Forwarded (RFC 7239) is read when the proxy is said to write it")
    func forwardedHeader() throws {
        // setup
        let headers: HTTPFields = [try #require(HTTPField.Name("Forwarded")): #"for=203.0.113.7;proto=https, for="[2001:db8::1]:4711""#]
        // act
        let chain = ClientAddressMiddleware.chain(headers, header: .forwarded)
        // check
        #expect(chain == ["203.0.113.7", "[2001:db8::1]:4711"])
        #expect(try TrustedProxies(parsing: ["2001:db8::/32"]).client(peer: "2001:db8::9", forwardedFor: chain) == "203.0.113.7")
    }

    @Test("only the header the proxy writes is read: one a client sent through it as well cannot choose the address")
    func onlyTheProxysHeader() throws {
        // setup: a client sent its own header of the other kind; the proxy appended the real peer to its own
        let xForwardedFor = try #require(HTTPField.Name("X-Forwarded-For"))
        let forwarded = try #require(HTTPField.Name("Forwarded"))
        let proxyWritesForwarded: HTTPFields = [xForwardedFor: "198.51.100.66", forwarded: "for=203.0.113.7"]
        let proxyWritesXForwardedFor: HTTPFields = [xForwardedFor: "203.0.113.7", forwarded: "for=198.51.100.66"]
        // act
        let fromForwarded = ClientAddressMiddleware.chain(proxyWritesForwarded, header: .forwarded)
        let fromXForwardedFor = ClientAddressMiddleware.chain(proxyWritesXForwardedFor, header: .xForwardedFor)
        // check
        #expect(fromForwarded == ["203.0.113.7"])
        #expect(fromXForwardedFor == ["203.0.113.7"])
        #expect(ForwardingHeader(rawValue: "forwarded") == .forwarded && ForwardingHeader(rawValue: "x-forwarded-for") == .xForwardedFor)
    }

    @Test("a list that is not addresses is refused with an example", arguments: ["10.0.0.0/33", "proxy.example", "fd00::/129"])
    func invalid(item: String) {
        #expect(throws: TrustedProxiesError.invalid(item)) { try TrustedProxies(parsing: ["10.0.0.1, " + item]) }
    }

    @Test(
        "forwarding headers from a proxy that is not trusted (a proxy nobody named) are said on the dashboard with the option that fixes it; a trusted proxy's are not"
    )
    func untrustedProxyNoticed() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            #expect(!(try await browser.get("/")).contains("Set-up:"))
            // act: requests arrive as through a proxy in front of the console
            browser.headers = [("X-Forwarded-For", "203.0.113.7")]
            _ = try await browser.get("/libraries")
            // The dashboard viewed a moment ago is served as it was for up to a second (`--recent-page-lifetime`).
            try await Task.sleep(for: .milliseconds(1_200))
            let dashboard = try await browser.get("/")
            // check
            #expect(dashboard.contains("Set-up:") && dashboard.contains("is not a trusted proxy"), "\(dashboard.html.prefix(300))")
            #expect(dashboard.contains("start the console with --trusted-proxy "))
        }
        let proxies = try TrustedProxies(parsing: ["127.0.0.1", "::1"])
        try await ConsoleFixture.withConsole(configure: { $0.trustedProxies = proxies }) { browser, _, _ in
            browser.headers = [("X-Forwarded-For", "203.0.113.7")]
            try await browser.signIn()
            #expect(!(try await browser.get("/")).contains("Set-up:"))
        }
    }

    @Test("behind a trusted proxy, lockout and the audit log use the forwarded client")
    func lockoutAndAudit() async throws {
        let proxies = try TrustedProxies(parsing: ["127.0.0.1", "::1", "10.0.0.0/8"])
        try await ConsoleFixture.withConsole(configure: { $0.trustedProxies = proxies }) { browser, _, directory in
            // setup: five failures from one client behind the proxies
            browser.headers = [("X-Forwarded-For", "203.0.113.7, 10.1.2.3")]
            for _ in 0..<5 { try await browser.signIn(password: "guess") }
            #expect(try await browser.signIn().status == .tooManyRequests)
            // act: another client behind the same proxies
            browser.headers = [("X-Forwarded-For", "198.51.100.4")]
            let other = try await browser.signIn()
            // check
            #expect(other.status == .seeOther, "\(other)")
            let addresses = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try String.fetchAll(db, sql: "SELECT DISTINCT clientAddress FROM auditEntry WHERE action = 'session.signIn' ORDER BY clientAddress")
            }
            #expect(addresses == ["198.51.100.4", "203.0.113.7"])
        }
    }

    @Test("with --forward-staff-address, behind a trusted proxy, the backend is sent the forwarded client as X-Forwarded-For")
    func addressSentToTheBackend() async throws {
        let proxies = try TrustedProxies(parsing: ["127.0.0.1", "::1"])
        try await ConsoleFixture.withCountedConsole(configure: {
            $0.trustedProxies = proxies
            $0.forwardClientAddress = true
        }) { browser, _, proxy, _ in
            // setup
            browser.headers = [("X-Forwarded-For", "203.0.113.7")]
            // act
            let signedIn = try await browser.signIn()
            // check
            #expect(signedIn.status == .seeOther, "\(signedIn)")
            #expect(await proxy.forwardedFor(.post, "/api/v1/auth/login") == ["203.0.113.7"])
            #expect(await proxy.forwardedFor(.get, "/api/v1/auth/me") == ["203.0.113.7"])
        }
    }

    @Test("by default the console is one client: no staff member's address reaches the backend, whatever the proxy says")
    func addressNotSentByDefault() async throws {
        let proxies = try TrustedProxies(parsing: ["127.0.0.1", "::1"])
        try await ConsoleFixture.withCountedConsole(configure: { $0.trustedProxies = proxies }) { browser, _, proxy, _ in
            // setup
            browser.headers = [("X-Forwarded-For", "203.0.113.7")]
            // act
            let signedIn = try await browser.signIn()
            // check: "" is a call that carried no X-Forwarded-For
            #expect(signedIn.status == .seeOther, "\(signedIn)")
            #expect(await proxy.forwardedFor(.post, "/api/v1/auth/login") == [""])
            #expect(await proxy.forwardedFor(.get, "/api/v1/auth/me") == [""])
        }
    }

    @Test("without --trusted-proxy the forwarding headers are ignored")
    func headersIgnoredByDefault() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            browser.headers = [("X-Forwarded-For", "203.0.113.7")]
            for _ in 0..<5 { try await browser.signIn(password: "guess") }
            // act
            browser.headers = [("X-Forwarded-For", "198.51.100.4")]
            let other = try await browser.signIn()
            // check
            #expect(other.status == .tooManyRequests, "\(other)")
        }
    }
}
