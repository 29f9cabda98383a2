import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 11 item 12: a session whose backend credentials are refused or cannot be opened
/// is ended, and the person is sent to sign in (no loop of error pages).
@Suite("Sessions end when their backend credentials no longer work", .timeLimit(.minutes(3)))
struct SessionEndingTests {
    private func sessionRows(_ directory: TemporaryDirectory) throws -> Int {
        try DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session") ?? -1
        }
    }

    @Test("tokens the backend revoked: the next page after the staff re-check leads to sign-in with a message, the session is gone, signing in again works")
    func revokedAtTheBackend() async throws {
        // Pages read the mirror, not the backend: the re-check (auth/me) is what meets the refused tokens.
        try await ConsoleFixture.withConsole(configure: { $0.staffRecheckInterval = 1 }) { browser, _, directory in
            // setup
            try await browser.signIn()
            #expect(try await browser.get("/").status == .ok)
            // act: the backend revokes every token of the account (it gets a new id; old tokens name the old one)
            var settings = Configuration()
            settings.foreignKeysEnabled = false
            try await DatabaseQueue(path: directory.path("sandbox.sqlite"), configuration: settings).write { db in
                try db.execute(sql: "UPDATE user SET id = id + 100000 WHERE username = ?", arguments: [SeedAccounts.demoStaffUsername])
            }
            try await Task.sleep(for: .milliseconds(1_200))
            let page = try await browser.get("/reports")
            // check
            #expect(page.status == .seeOther, "\(page)")
            let location = try #require(page.location)
            #expect(location.hasPrefix("/sign-in"))
            #expect(try await browser.get(location).contains("Book Corners no longer accepts your sign-in"))
            #expect(try sessionRows(directory) == 0)
            let ended = try await ModerationStore(path: directory.path("console.sqlite")).auditEntries(limit: 20).filter { $0.action == "session.end" }
            #expect(ended.map(\.outcome) == [.ended] && ended.map(\.outcomeDetail) == ["refused"], "the audit log says the console ended it, and why")
            #expect(ended.first?.actorUsername == SeedAccounts.demoStaffUsername)
            #expect(try await browser.signIn().status == .seeOther)
            #expect(try await browser.get("/reports").status == .ok)
        }
    }

    @Test("a console restarted with another token key: the next page, even one that never calls the backend, leads to sign-in")
    func tokenKeyReplaced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await SandboxFixture.run(databasePath: directory.path("sandbox.sqlite")) { sandbox in
            // setup: signed in on a console with one key
            var first = ConsoleFixture.configuration(backendURL: sandbox.baseURL, directory: directory)
            first.tokenKey = Data(repeating: 1, count: 32).base64EncodedString()
            let cookies = try await buildConsoleApplication(configuration: first, logger: ConsoleFixture.quietLogger).test(.live) { client in
                let browser = Browser(client: client)
                try await browser.signIn()
                #expect(try await browser.get("/").status == .ok)
                return browser.cookies
            }
            // act: the same database, another key
            var second = first
            second.tokenKey = Data(repeating: 2, count: 32).base64EncodedString()
            try await buildConsoleApplication(configuration: second, logger: ConsoleFixture.quietLogger).test(.live) { client in
                let browser = Browser(client: client, cookies: cookies)
                let audit = try await browser.get("/audit")
                // check
                #expect(audit.status == .seeOther, "\(audit)")
                let location = try #require(audit.location)
                #expect(location.hasPrefix("/sign-in"))
                #expect(try await browser.get(location).contains("could not read your saved sign-in"))
                #expect(try sessionRows(directory) == 0)
                #expect(try await browser.signIn().status == .seeOther)
                #expect(try await browser.get("/reports").status == .ok)
            }
        }
    }

    @Test("an error page shown to someone signed in keeps their sign-out button")
    func errorPageSeesTheSession() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            try await browser.signIn()
            // act
            let missingLibrary = try await browser.get("/libraries/no-such-library")
            let missingPage = try await browser.get("/no/such/page")
            // check
            for page in [missingLibrary, missingPage] {
                #expect(page.status == .notFound)
                #expect(page.contains(#"action="/sign-out""#), "\(page)")
            }
        }
    }
}
