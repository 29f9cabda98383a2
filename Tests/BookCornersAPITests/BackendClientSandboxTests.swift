import BookCornersAPI
import Foundation
import Sandbox
import TestSupport
import Testing

/// The client's calls that the sandbox suites do not already make, against the sandbox.
@Suite("BackendClient against the sandbox", .timeLimit(.minutes(3)))
struct BackendClientSandboxTests {
    @Test("sign-in, me and refresh; a refreshed token works; a non-staff account is told apart")
    func authentication() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let tokens = try await client.signIn(username: "staff@example.com", password: SeedAccounts.demoStaffPassword)
                let fresh = try await client.refreshAccessToken(tokens.refresh)
                #expect(fresh.split(separator: ".").count == 3)
                let account = try await client.me(StaffCredentials(accessToken: fresh, refreshToken: tokens.refresh))
                #expect(account.username == "staff" && account.isStaff)
                await #expect(throws: BackendError.invalidCredentials) { try await client.signIn(username: "staff", password: "nope") }
                await #expect(throws: BackendError.sessionExpired) { try await client.refreshAccessToken("not-a-token") }
                let user = try await client.signIn(username: "alice", password: SeedAccounts.userPassword)
                let credentials = StaffCredentials(accessToken: user.access, refreshToken: user.refresh)
                #expect(try await client.me(credentials).isStaff == false)
                await #expect(throws: BackendError.notStaff) { try await client.summary(credentials) }
                await #expect(throws: BackendError.notFound) {
                    try await client.library(slug: "no-such-library", credentials: StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh))
                }
            }
        }
    }

    @Test("an access token about to expire is refreshed before the call: no read is spent on a 401")
    func refreshBeforeExpiry() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.path("requests.ndjson")
        // 12-s access tokens: after 4 s one has less than the client's 10-s margin left
        try await SandboxFixture.run(accessTokenLifetime: 12, requestLogPath: log) { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                // setup
                let tokens = try await client.signIn(username: "staff", password: SeedAccounts.demoStaffPassword)
                let credentials = StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
                _ = try await client.summary(credentials)
                try await Task.sleep(for: .seconds(4))
                // act
                _ = try await client.summary(credentials)
                // check
                let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                let statuses = lines.compactMap { line -> (path: String, status: Int)? in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let path = object["path"] as? String, let status = object["status"] as? Int
                    else { return nil }
                    return (path, status)
                }
                #expect(statuses.filter { $0.status == 401 }.isEmpty, "no call was answered 401: \(statuses)")
                #expect(statuses.filter { $0.path.hasPrefix("/api/v1/auth/refresh") }.count == 1, "one refresh, made first: \(statuses)")
                #expect(await credentials.accessToken != tokens.access)
            }
        }
    }

    @Test("a 422 from the backend becomes field errors staff can read")
    func validation() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let tokens = try await client.signIn(username: "staff", password: SeedAccounts.demoStaffPassword)
                let credentials = StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
                let slug = try #require(try await sandbox.pendingLibraries(token: tokens.access).items.first?.slug)
                do {
                    _ = try await client.setLibraryStatus(
                        slug: slug, to: .rejected, rejectionReason: String(repeating: "x", count: 2001), credentials: credentials)
                    Issue.record("a 2001-character reason should be refused")
                } catch {
                    guard let backendError = error as? BackendError, case .validation(let fields) = backendError else { Issue.record("\(error)"); return }
                    #expect(fields.first?.location == "body.payload.rejection_reason")
                    #expect(backendError.staffMessage.contains("at most 2000 characters"))
                }
            }
        }
    }

    @Test("a refresh the backend refuses with 422 (a stored refresh token under 20 characters) ends the session")
    func refreshRefusedAs422() async throws {
        try await SandboxFixture.run { sandbox in
            // setup: the access token is no good, and the refresh token is one the backend validates away
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                let credentials = StaffCredentials(accessToken: "expired-access-token", refreshToken: "too-short")
                let refusal = try await sandbox.raw(.POST, "/api/v1/auth/refresh", json: #"{"refresh": "too-short"}"#)
                #expect(refusal.status == 422, "the sandbox refuses it as the real server does")
                // act + check: sign in again, not a validation error shown to staff
                await #expect(throws: BackendError.sessionExpired) { try await client.refreshAccessToken("too-short") }
                await #expect(throws: BackendError.sessionExpired) { try await client.summary(credentials) }
            }
        }
    }
}
