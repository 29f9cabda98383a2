import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 11 item 15: the lockout counts attempts as they start, and one account's username
/// and e-mail together.
@Suite("Sign-in lockout under parallel attempts and other names", .timeLimit(.minutes(3)))
struct SignInLockoutTests {
    @Test("eight parallel wrong passwords on their own connections: at most five reach the backend, the rest are paused")
    func parallelGuesses() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup: eight clients, each with its own sign-in form (the test client would send them one by one)
            let origin = "http://127.0.0.1:\(try #require(browser.client.port))"
            var forms: [(cookie: String, token: String)] = []
            for _ in 0..<8 { forms.append(try await signInForm(origin)) }
            // act
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for form in forms {
                    group.addTask {
                        let body = "csrf=\(form.token)&login=\(SeedAccounts.demoStaffUsername)&password=guess"
                        return try await rawHTTP(
                            .POST, origin + "/sign-in",
                            headers: [("Cookie", form.cookie), ("Content-Type", "application/x-www-form-urlencoded")],
                            body: Array(body.utf8)
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // check
            #expect(statuses.filter { $0 == 401 }.count == 5, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 3, "\(statuses)")
            #expect(try await browser.signIn().status == .tooManyRequests, "the right password waits too")
        }
    }

    @Test("one address trying many usernames, once each, is paused after ten failures: the rest never reach Book Corners")
    func manyNamesFromOneAddress() async throws {
        try await ConsoleFixture.withCountedConsole(mirror: .empty) { browser, _, proxy, _ in
            // act: twelve names no account has, as someone guessing would type them
            var statuses: [Int] = []
            var last = ""
            for index in 1...12 {
                let page = try await browser.signIn("guess\(index)", password: "password")
                statuses.append(Int(page.status.code))
                last = page.html
            }
            // check
            #expect(statuses == Array(repeating: 401, count: 10) + [429, 429], "\(statuses)")
            #expect(last.contains("Too many failed sign-ins from your address"))
            let logins = await proxy.forwardedLog().filter { $0.path.hasSuffix("/auth/login") }
            #expect(logins.count == 10, "only the admitted attempts reached the backend: \(logins.count)")
            #expect(try await browser.signIn().status == .tooManyRequests, "staff behind the same address wait too, and are told why")
        }
    }

    /// A fresh sign-in form over its own connection: its token cookie and the form's token.
    private func signInForm(_ origin: String) async throws -> (cookie: String, token: String) {
        let answer = try await rawHTTP(.GET, origin + "/sign-in")
        let setCookie = try #require(answer.headers.first { $0.0 == "set-cookie" && $0.1.hasPrefix("bc_signin=") }?.1)
        let cookie = String(setCookie.prefix { $0 != ";" })
        let marker = try #require(answer.text.range(of: #"name="csrf" value=""#))
        return (cookie, String(answer.text[marker.upperBound...].prefix { $0 != "\"" }))
    }

    @Test("failures by username and by e-mail count together for a known account")
    func usernameAndEmailCountTogether() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup: the console has seen this account sign in (and learnt its e-mail)
            try await browser.signIn()
            let dashboard = try await browser.get("/")
            try await browser.post("/sign-out", form: [("csrf", dashboard.csrfToken ?? "")])
            let email = "\(SeedAccounts.demoStaffUsername)@example.com"
            // act: three guesses by name, two by e-mail
            for _ in 0..<3 { #expect(try await browser.signIn(SeedAccounts.demoStaffUsername, password: "guess").status == .unauthorized) }
            for _ in 0..<2 { #expect(try await browser.signIn(email.uppercased(), password: "guess").status == .unauthorized) }
            // check
            let locked = try await browser.signIn(SeedAccounts.demoStaffUsername)
            #expect(locked.status == .tooManyRequests, "\(locked)")
            #expect(locked.contains("Sign-in is paused for 15 min"))
            #expect(try await browser.signIn(email).status == .tooManyRequests)
        }
    }
}
