import Foundation
import Sandbox
import TestSupport
import Testing

/// Each sandbox answer has the same keys and JSON kinds as the real backend's recorded one.
@Suite("Sandbox: answers shaped like the real backend's", .timeLimit(.minutes(3)))
struct SandboxShapeTests {
    @Test(
        "reads match their fixtures",
        arguments: [
            ("/api/v1/auth/me", "auth_me_staff.json"),
            ("/api/v1/libraries/moderation/summary", "moderation_summary.json"),
            ("/api/v1/libraries/moderation?status=pending&page=1&page_size=20", "moderation_pending_page1.json"),
            ("/api/v1/libraries/moderation/pending?page=1&page_size=20", "moderation_pending_shortcut.json"),
            ("/api/v1/libraries/moderation/reports", "moderation_reports_all.json"),
            ("/api/v1/libraries/moderation/photos", "moderation_photos_all.json"),
            ("/api/v1/statistics/", "statistics.json"),
            ("/api/v1/libraries/?lat=52.52&lng=13.405&radius_km=10", "libraries_nearby.json"),
            ("/api/v1/libraries/moderation?status=bogus", "err_422_bad_filter.json"),
            ("/api/v1/libraries/moderation/no-such-slug", "err_404.json"),
        ])
    func readShapes(path: String, fixture: String) async throws {
        try await SandboxFixture.run { sandbox in
            let answer = try await sandbox.raw(.GET, path, token: try await sandbox.accessToken())
            let differences = try JSONShape(json: answer.body).differences(from: JSONShape(json: Fixtures.data(fixture)))
            #expect(differences.isEmpty, "\(path) vs \(fixture): \(differences)")
        }
    }

    @Test("a library detail, sign-in, refresh, errors and PATCH answers match their fixtures")
    func otherShapes() async throws {
        try await SandboxFixture.run { sandbox in
            let login = try await sandbox.raw(.POST, "/api/v1/auth/login", json: #"{"username": "staff", "password": "\#(SeedAccounts.demoStaffPassword)"}"#)
            try expectShape(login, "auth_login.json")
            let tokens = try #require(try login.jsonObject())
            let token = try #require(tokens["access"] as? String)
            let refresh = try #require(tokens["refresh"] as? String)
            try expectShape(try await sandbox.raw(.POST, "/api/v1/auth/refresh", json: #"{"refresh": "\#(refresh)"}"#), "auth_refresh.json")
            try expectShape(try await sandbox.raw(.GET, "/api/v1/auth/me", token: "garbage"), "err_401_invalid_token.json")
            try expectShape(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/summary"), "err_401.json")

            let list = try #require(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending", token: token).jsonObject())
            let slugs = try #require(list["items"] as? [[String: Any]]).compactMap { $0["slug"] as? String }
            let slug = try #require(slugs.first)
            let stillPending = try #require(slugs.last)
            try expectShape(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: token), "moderation_library_detail.json")
            try expectShape(
                try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, json: #"{"status": "approved"}"#),
                "patch_library_approve.json")
            try expectShape(
                try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/reports/1", token: token, json: #"{"status": "resolved"}"#),
                "patch_report_resolve.json")
            try expectShape(
                try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/photos/1", token: token, json: #"{"status": "approved"}"#),
                "patch_photo_approve.json")
            try expectShape(
                try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, json: #"{"status": "nope"}"#),
                "err_422_bad_status.json")
            let userToken = try await sandbox.accessToken(username: "alice", password: SeedAccounts.userPassword)
            try expectShape(try await sandbox.raw(.GET, "/api/v1/libraries/moderation", token: userToken), "err_403_nonstaff_list.json")
            try expectShape(
                try await sandbox.raw(.GET, "/api/v1/libraries/\(stillPending)"), "err_404_public_detail_of_pending.json")
        }
    }

    private func expectShape(_ answer: RawAnswer, _ fixture: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let differences = try JSONShape(json: answer.body).differences(from: JSONShape(json: Fixtures.data(fixture)))
        #expect(differences.isEmpty, "\(fixture): \(differences)", sourceLocation: sourceLocation)
    }
}
