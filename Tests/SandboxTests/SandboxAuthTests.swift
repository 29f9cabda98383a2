import BookCornersAPI
import Foundation
import Sandbox
import TestSupport
import Testing

@Suite("Sandbox: sign-in, tokens and the staff check", .timeLimit(.minutes(3)))
struct SandboxAuthTests {
    @Test("staff sign in by username or by e-mail and get both tokens")
    func signInByUsernameOrEmail() async throws {
        try await SandboxFixture.run { sandbox in
            for login in ["staff", "staff@example.com", "STAFF@example.com"] {
                let answer = try await sandbox.raw(
                    .POST, "/api/v1/auth/login", json: #"{"username": "\#(login)", "password": "\#(SeedAccounts.demoStaffPassword)"}"#)
                #expect(answer.status == 200, "login as \(login)")
                let body = try #require(try answer.jsonObject())
                #expect((body["access"] as? String)?.split(separator: ".").count == 3)
                #expect((body["refresh"] as? String)?.split(separator: ".").count == 3)
            }
        }
    }

    @Test("a wrong password is a 401 with the backend's message and plain application/json")
    func wrongPassword() async throws {
        try await SandboxFixture.run { sandbox in
            let answer = try await sandbox.raw(.POST, "/api/v1/auth/login", json: #"{"username": "staff", "password": "nope"}"#)
            #expect(answer.status == 401)
            #expect(answer.header("content-type") == "application/json")
            #expect(answer.text.contains("Invalid credentials."))
        }
    }

    @Test("refresh answers a new access token only; a bad refresh token is a 401")
    func refresh() async throws {
        try await SandboxFixture.run { sandbox in
            let login = try #require(
                try await sandbox.raw(
                    .POST, "/api/v1/auth/login", json: #"{"username": "staff", "password": "\#(SeedAccounts.demoStaffPassword)"}"#
                ).jsonObject())
            let refreshToken = try #require(login["refresh"] as? String)
            let answer = try await sandbox.raw(.POST, "/api/v1/auth/refresh", json: #"{"refresh": "\#(refreshToken)"}"#)
            #expect(answer.status == 200)
            #expect(try answer.jsonObject()?.keys.sorted() == ["access"])
            let access = try #require(login["access"] as? String)
            let misuse = try await sandbox.raw(.POST, "/api/v1/auth/refresh", json: #"{"refresh": "\#(access)"}"#)
            #expect(misuse.status == 401, "an access token is not a refresh token")
            #expect(misuse.text.contains("Invalid or expired refresh token."))
        }
    }

    @Test("an access token stops working when its lifetime is over")
    func accessTokenExpires() async throws {
        // Lifetimes count whole seconds from the issue second: 3 s leaves at least 2 s to use it.
        try await SandboxFixture.run(accessTokenLifetime: 3) { sandbox in
            let token = try await sandbox.accessToken()
            #expect(try await sandbox.raw(.GET, "/api/v1/auth/me", token: token).status == 200)
            try await Task.sleep(for: .milliseconds(4_100))
            let expired = try await sandbox.raw(.GET, "/api/v1/auth/me", token: token)
            #expect(expired.status == 401)
            #expect(expired.text.contains("token_not_valid"), "the real backend's internal message, reproduced")
        }
    }

    @Test("me tells staff from ordinary users; no token is 401 Unauthorized")
    func me() async throws {
        try await SandboxFixture.run { sandbox in
            let staff = try await sandbox.raw(.GET, "/api/v1/auth/me", token: try await sandbox.accessToken())
            #expect(try staff.jsonObject()?["is_staff"] as? Bool == true)
            let userToken = try await sandbox.accessToken(username: "alice", password: SeedAccounts.userPassword)
            let user = try await sandbox.raw(.GET, "/api/v1/auth/me", token: userToken)
            #expect(try user.jsonObject()?["is_staff"] as? Bool == false)
            let anonymous = try await sandbox.raw(.GET, "/api/v1/auth/me")
            #expect(anonymous.status == 401)
            #expect(try anonymous.jsonObject()?["message"] as? String == "Unauthorized")
        }
    }

    @Test(
        "ordinary users get 403 on every moderation call",
        arguments: [
            ("GET", "/api/v1/libraries/moderation/summary"), ("GET", "/api/v1/libraries/moderation"),
            ("GET", "/api/v1/libraries/moderation/pending"), ("GET", "/api/v1/libraries/moderation/reports"),
            ("GET", "/api/v1/libraries/moderation/photos"), ("PATCH", "/api/v1/libraries/moderation/reports/1"),
        ])
    func nonStaffRefused(method: String, path: String) async throws {
        try await SandboxFixture.run { sandbox in
            let token = try await sandbox.accessToken(username: "alice", password: SeedAccounts.userPassword)
            let answer = try await sandbox.raw(
                .init(rawValue: method), path, token: token, body: method == "PATCH" ? Array(#"{"status": "resolved"}"#.utf8) : nil)
            #expect(answer.status == 403)
            #expect(try answer.jsonObject()?["message"] as? String == "Staff access required.")
        }
    }
}
