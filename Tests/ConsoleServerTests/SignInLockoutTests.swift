@testable import ConsoleServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sandbox
import Testing
import TestSupport

/// Issue 11 item 15: the lockout counts attempts as they start, and one account's username
/// and e-mail together.
@Suite("Sign-in lockout under parallel attempts and other names", .timeLimit(.minutes(3)))
struct SignInLockoutTests {
    @Test("eight parallel wrong passwords: at most five reach the backend, the rest are paused")
    func parallelGuesses() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup: eight browsers, each with its own sign-in form
            var guessers: [(Browser, String)] = []
            for _ in 0..<8 {
                let guesser = Browser(client: browser.client)
                let form = try await guesser.get("/sign-in")
                guessers.append((guesser, form.csrfToken ?? ""))
            }
            // act
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for (guesser, token) in guessers {
                    group.addTask {
                        try await guesser.post("/sign-in", form: [("csrf", token), ("login", SeedAccounts.demoStaffUsername), ("password", "guess")]).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // check
            #expect(statuses.filter { $0 == .unauthorized }.count == 5, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 3, "\(statuses)")
            #expect(try await browser.signIn().status == .tooManyRequests, "the right password waits too")
        }
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
