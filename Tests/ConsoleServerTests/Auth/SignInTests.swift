import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

@Suite("Sign-in, sessions and the rules around them", .timeLimit(.minutes(3)))
struct SignInTests {
    @Test(
        "every page but sign-in needs a session and remembers where you were going",
        arguments: [
            "/", "/libraries", "/libraries?status=all", "/libraries/some-slug", "/reports", "/photos",
        ])
    func signInRequired(path: String) async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            let page = try await browser.get(path)
            #expect(page.status == .seeOther)
            let location = try #require(page.location)
            #expect(location.hasPrefix("/sign-in?next="))
            #expect(location.removingPercentEncoding?.hasSuffix("next=" + path) == true)
        }
    }

    @Test("staff sign in: an opaque HttpOnly SameSite=Strict cookie, then the page they asked for")
    func staffSignIn() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            let answer = try await browser.signIn(next: "/libraries?status=all")
            #expect(answer.status == .seeOther)
            #expect(answer.location == "/libraries?status=all")
            let cookie = try #require(answer.headers[values: .setCookie].first { $0.hasPrefix("bc_session=") })
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"), "plain HTTP on loopback")
            let value = try #require(browser.cookies["bc_session"])
            #expect(value.count >= 40 && !value.contains("eyJ"), "opaque, not a token")
            let dashboard = try await browser.get("/")
            #expect(dashboard.status == .ok)
            #expect(dashboard.contains("library submissions waiting"))
            #expect(!dashboard.contains("eyJ"), "backend tokens never reach the browser")
        }
    }

    @Test("cookies are Secure behind a TLS proxy, and every sign-in gets a new id")
    func secureAndRotated() async throws {
        try await ConsoleFixture.withConsole(behindTLSProxy: true) { browser, _, _ in
            let first = try await browser.signIn()
            #expect(first.headers[values: .setCookie].contains { $0.hasPrefix("__Host-bc_session=") && $0.contains("Secure") })
            let firstValue = try #require(browser.cookies["__Host-bc_session"])
            let page = try await browser.get("/")
            try await browser.post("/sign-out", form: [("csrf", page.csrfToken ?? "")])
            try await browser.signIn()
            let secondValue = try #require(browser.cookies["__Host-bc_session"])
            #expect(secondValue != firstValue)
        }
    }

    @Test("wrong password, non-staff account and a down backend each get their own message")
    func failures() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            let wrong = try await browser.signIn(password: "not-the-password")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.contains("do not match a Book Corners account"))
            let user = try await browser.signIn(SeedAccounts.demoUserUsername, password: SeedAccounts.userPassword)
            #expect(user.status == .forbidden)
            #expect(user.contains("not a staff account"))
            #expect(browser.cookies["bc_session"] == nil)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let app = try await buildConsoleApplication(
            configuration: ConsoleFixture.configuration(backendURL: URL(string: "http://127.0.0.1:1/api/v1/")!, directory: directory),
            logger: ConsoleFixture.quietLogger)
        try await app.test(.live) { client in
            let down = try await Browser(client: client).signIn()
            #expect(down.status == .ok, "the console is well: its form says Book Corners cannot be reached")
            #expect(down.contains("cannot be reached"))
        }
    }

    @Test("someone Book Corners no longer calls staff loses their calendar feed when they try to sign in, audited")
    func formerStaffFeedEnds() async throws {
        try await ConsoleFixture.withConsole(mirror: .empty) { browser, sandbox, directory in
            // setup: alice once had a feed (as staff); the backend now says she is not staff
            let token = try await sandbox.accessToken(username: SeedAccounts.demoUserUsername, password: SeedAccounts.userPassword)
            let me = try await sandbox.raw(.GET, "/api/v1/auth/me", token: token).jsonObject()
            let aliceID = try #require(me?["id"] as? Int)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            try await store.recordStaffMember(StaffMember(id: aliceID, username: "alice"), signedInAt: nil)
            let secret = try await store.regenerateCalendarFeed(
                staffId: aliceID,
                audit: AuditEntry(
                    recordedAt: Date(), actorId: aliceID, actorUsername: "alice", action: "calendar.regenerate",
                    targetKind: "oncall", targetId: String(aliceID), targetSlug: "", targetName: "calendar feed of alice", statusBefore: "",
                    statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil, requestId: "t", clientAddress: "127.0.0.1",
                    userAgent: "test", itemCreatedAt: nil, actionId: nil),
                now: Date())
            await #expect(try store.calendarFeedOwner(token: secret) != nil)
            // act
            let refused = try await browser.signIn(SeedAccounts.demoUserUsername, password: SeedAccounts.userPassword)
            // check
            #expect(refused.status == .forbidden)
            await #expect(try store.calendarFeedOwner(token: secret) == nil, "the feed's address answers nothing any more")
            let ended = try await store.auditEntries().first { $0.action == AuditEntry.calendarFeedRevokeAction }
            #expect(ended?.outcomeDetail == "notStaff" && ended?.targetId == String(aliceID))
        }
    }

    @Test("five failures for one account lock it for 15 minutes, even with the right password")
    func lockout() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            for _ in 0..<5 { try await browser.signIn(password: "guess") }
            let locked = try await browser.signIn()
            #expect(locked.status == .tooManyRequests)
            #expect(locked.contains("Sign-in is paused for 15 min"))
            let other = try await browser.signIn("maria", password: SeedAccounts.demoStaffPassword)
            #expect(other.status == .seeOther, "another account is not locked")
        }
    }

    @Test("a sign-in form without its token is refused")
    func signInCSRF() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            let page = try await browser.post("/sign-in", form: [("csrf", "forged"), ("login", "staff"), ("password", SeedAccounts.demoStaffPassword)])
            #expect(page.status == .forbidden)
            #expect(browser.cookies["bc_session"] == nil)
        }
    }

    @Test(
        "next= never leads to another host",
        arguments: [
            ("//evil.example/path", "/"), ("https://evil.example/", "/"), ("/\\evil.example", "/"), ("javascript:alert(1)", "/"),
            ("/reports?status=all", "/reports?status=all"), ("", "/"),
        ])
    func nextIsLocal(next: String, expected: String) async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            let answer = try await browser.signIn(next: next)
            #expect(answer.location == expected)
        }
    }

    @Test("sign-out needs the CSRF token and ends the session")
    func signOut() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            try await browser.signIn()
            let forged = try await browser.post("/sign-out", form: [("csrf", "nope")])
            #expect(forged.status == .forbidden)
            #expect(forged.contains("This form has expired"))
            #expect(try await browser.get("/").status == .ok, "still signed in")
            let dashboard = try await browser.get("/")
            let out = try await browser.post("/sign-out", form: [("csrf", dashboard.csrfToken ?? "")])
            #expect(out.status == .seeOther && out.location == "/sign-in?signed_out=1")
            #expect(try await browser.get("/sign-in?signed_out=1").contains(#"<p class="notice" role="alert">You have signed out.</p>"#))
            #expect(try await browser.get("/").status == .seeOther)
        }
    }

    @Test("an idle session expires and the sign-in page says so")
    func idleTimeout() async throws {
        try await ConsoleFixture.withConsole(idleTimeout: 3) { browser, _, _ in
            // No page between sign-in and the wait: on a busy machine a dashboard (which calls
            // the backend) can take longer than a short idle timeout, and expire the session early.
            let signedIn = try await browser.signIn()
            #expect(signedIn.status == .seeOther && signedIn.location == "/")
            try await Task.sleep(for: .milliseconds(4_000))
            let expired = try await browser.get("/libraries")
            #expect(expired.location == "/sign-in?expired=1&next=%2Flibraries", "where they were going is kept (issue 21)")
            #expect(try await browser.get("/sign-in?expired=1").contains("Your session has ended"))
        }
    }

    @Test("backend tokens are encrypted at rest; the key file is private")
    func tokensEncrypted() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            for name in ["console.sqlite", "console.sqlite-wal"] {
                let bytes = (try? Data(contentsOf: directory.url.appendingPathComponent(name))) ?? Data()
                #expect(bytes.range(of: Data("eyJhbGciOiJIUzI1NiIs".utf8)) == nil, "no JWT in \(name)")
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.path("console.key"))
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }
}
