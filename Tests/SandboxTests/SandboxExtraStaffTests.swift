import Foundation
import Sandbox
import TestSupport
import Testing

/// `console sandbox --extra-staff N`: more staff accounts for soak runs, the rest of the data set unchanged.
@Suite("Sandbox: extra staff accounts", .timeLimit(.minutes(3)))
struct SandboxExtraStaffTests {
    @Test("--extra-staff 20 seeds soak01…soak20 as staff with the staff password; libraries and ids stay as without")
    func twentyExtraStaff() async throws {
        // setup
        let plain = try await pendingSlugsAndStaff(extraStaff: 0)
        // act
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.path("sandbox.sqlite")
        let extra = try await SandboxFixture.run(databasePath: database, libraries: 100, extraStaff: 20) { sandbox in
            for name in ["soak01", "soak10", "soak20"] {
                let token = try await sandbox.accessToken(username: name)
                let me = try #require(try await sandbox.raw(.GET, "/api/v1/auth/me", token: token).jsonObject())
                #expect(me["username"] as? String == name)
                #expect(me["is_staff"] as? Bool == true, "\(name) is staff")
                #expect(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/summary", token: token).status == 200)
            }
            let wrong = try await sandbox.raw(.POST, "/api/v1/auth/login", json: #"{"username": "soak21", "password": "\#(SeedAccounts.demoStaffPassword)"}"#)
            #expect(wrong.status == 401, "only 20 were asked for")
            return try await pendingSlugs(sandbox)
        }
        let staff = try SeedAccounts.staffAccounts(databasePath: database)
        // check
        #expect(extra == plain.slugs, "the extra accounts come after everything else, so the data set is the same")
        #expect(staff.count == 23)
        #expect(Array(staff.prefix(3)).map(\.username) == plain.staff.map(\.username))
        #expect(Array(staff.prefix(3)).map(\.id) == plain.staff.map(\.id), "the usual accounts keep their ids")
        #expect(staff.suffix(20).map(\.username) == (1...20).map { String(format: "soak%02d", $0) })
    }

    @Test("an existing database keeps its accounts: --extra-staff only seeds a new one")
    func existingDatabaseUnchanged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.path("sandbox.sqlite")
        try await SandboxFixture.run(databasePath: database, libraries: 100) { _ in }
        try await SandboxFixture.run(databasePath: database, libraries: 100, extraStaff: 5) { sandbox in
            let answer = try await sandbox.raw(.POST, "/api/v1/auth/login", json: #"{"username": "soak01", "password": "\#(SeedAccounts.demoStaffPassword)"}"#)
            #expect(answer.status == 401)
        }
        #expect(try SeedAccounts.staffAccounts(databasePath: database).count == 3)
    }

    private func pendingSlugsAndStaff(extraStaff: Int) async throws -> (slugs: [String], staff: [(id: Int, username: String)]) {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let database = directory.path("sandbox.sqlite")
        let slugs = try await SandboxFixture.run(databasePath: database, libraries: 100, extraStaff: extraStaff) { try await pendingSlugs($0) }
        return (slugs, try SeedAccounts.staffAccounts(databasePath: database))
    }

    private func pendingSlugs(_ sandbox: SandboxFixture) async throws -> [String] {
        let token = try await sandbox.accessToken()
        let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page_size=50", token: token).jsonObject()
        return ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
    }
}
