import Foundation
import Sandbox
import TestSupport
import Testing

/// What the real backend does that its documentation does not say (backend-api.md items
/// 11–13, issue 18), each checked against its fixture.
@Suite("Sandbox: the real server's undocumented behaviour", .timeLimit(.minutes(3)))
struct SandboxFidelityTests {
    @Test("a refresh body under 20 characters is a 422 string_too_short, not a 401", arguments: ["short", ""])
    func shortRefresh(token: String) async throws {
        try await SandboxFixture.run { sandbox in
            // act
            let answer = try await sandbox.raw(.POST, "/api/v1/auth/refresh", json: #"{"refresh": "\#(token)"}"#)
            // check
            try RecordedAnswer("err_422_refresh_short.json").expectSame(as: answer)
        }
    }

    @Test("a PATCH without a body is a 422 missing at body.payload")
    func patchWithoutBody() async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let token = try await sandbox.accessToken()
            let slug = try #require(try await pendingSlugs(sandbox, token).first)
            // act
            let answer = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: token)
            // check
            try RecordedAnswer("err_422_patch_no_body.json").expectSame(as: answer)
        }
    }

    @Test("a JSON array as the PATCH body is a 422 missing at body.payload.status")
    func patchWithArrayBody() async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let token = try await sandbox.accessToken()
            let slug = try #require(try await pendingSlugs(sandbox, token).first)
            // act
            let answer = try await sandbox.raw(.PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, json: #"["approved"]"#)
            // check
            try RecordedAnswer("err_422_patch_array_body.json").expectSame(as: answer)
        }
    }

    @Test("a null rejection_reason is a 422 string_type")
    func nullReason() async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let token = try await sandbox.accessToken()
            let slug = try #require(try await pendingSlugs(sandbox, token).first)
            // act
            let answer = try await sandbox.raw(
                .PATCH, "/api/v1/libraries/moderation/\(slug)", token: token, json: #"{"status": "rejected", "rejection_reason": null}"#)
            // check
            try RecordedAnswer("err_422_rejection_reason_null.json").expectSame(as: answer)
            let library = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(slug)", token: token).jsonObject()
            #expect(library?["status"] as? String == "pending", "nothing was changed")
        }
    }

    @Test("the rejection reason is stored trimmed and kept when the library leaves rejected")
    func reasonTrimmedAndKept() async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let token = try await sandbox.accessToken()
            let slug = try #require(try await pendingSlugs(sandbox, token).first)
            let recorded = try RecordedAnswer("patch_library_back_to_pending.json")
            let recordedLibrary = try #require(try JSONSerialization.jsonObject(with: recorded.body) as? [String: Any])
            let recordedReason = try #require(recordedLibrary["rejection_reason"] as? String)
            let path = "/api/v1/libraries/moderation/\(slug)"
            // act
            let rejected = try await sandbox.raw(
                .PATCH, path, token: token, json: #"{"status": "rejected", "rejection_reason": "  \#(recordedReason)\n "}"#)
            let reopened = try await sandbox.raw(.PATCH, path, token: token, json: #"{"status": "pending"}"#)
            let approved = try await sandbox.raw(.PATCH, path, token: token, json: #"{"status": "approved", "rejection_reason": "ignored"}"#)
            // check
            #expect(try rejected.jsonObject()?["rejection_reason"] as? String == recordedReason)
            #expect(reopened.status == recorded.status)
            try recorded.expectSameShape(as: reopened)
            #expect(try reopened.jsonObject()?["status"] as? String == "pending")
            #expect(try reopened.jsonObject()?["rejection_reason"] as? String == recordedReason)
            #expect(try approved.jsonObject()?["rejection_reason"] as? String == recordedReason, "only a rejection stores a reason")
            let rejectedAgain = try await sandbox.raw(.PATCH, path, token: token, json: #"{"status": "rejected"}"#)
            #expect(try rejectedAgain.jsonObject()?["rejection_reason"] as? String == "", "rejecting without a reason stores an empty one")
        }
    }

    @Test("the pending list validates status like the other lists")
    func pendingValidatesStatus() async throws {
        try await SandboxFixture.run { sandbox in
            // act
            let answer = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?status=bogus", token: try await sandbox.accessToken())
            // check
            try RecordedAnswer("err_422_pending_bad_status.json").expectSame(as: answer)
        }
    }

    @Test("sign-in ignores the username's case and surrounding spaces", arguments: ["STAFF", "  staff ", " Staff@Example.com  "])
    func loginIsForgiving(login: String) async throws {
        try await SandboxFixture.run { sandbox in
            // act
            let answer = try await sandbox.raw(
                .POST, "/api/v1/auth/login", json: #"{"username": "\#(login)", "password": "\#(SeedAccounts.demoStaffPassword)"}"#)
            // check
            #expect(answer.status == 200)
            try RecordedAnswer("auth_login.json").expectSameShape(as: answer)
        }
    }

    @Test("the Authorization scheme: bearer in lower case works, an unknown one is Unauthorized, a refresh token has the wrong type")
    func authorizationScheme() async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let login = try #require(
                try await sandbox.raw(
                    .POST, "/api/v1/auth/login", json: #"{"username": "staff", "password": "\#(SeedAccounts.demoStaffPassword)"}"#
                ).jsonObject())
            let access = try #require(login["access"] as? String)
            let refresh = try #require(login["refresh"] as? String)
            // act
            let lowerCase = try await sandbox.raw(.GET, "/api/v1/auth/me", headers: [("Authorization", "bearer \(access)")])
            let otherScheme = try await sandbox.raw(.GET, "/api/v1/auth/me", headers: [("Authorization", "Token \(access)")])
            let refreshAsBearer = try await sandbox.raw(.GET, "/api/v1/auth/me", token: refresh)
            // check
            #expect(lowerCase.status == 200)
            try RecordedAnswer("auth_me_staff.json").expectSameShape(as: lowerCase)
            try RecordedAnswer("err_401_unknown_scheme.json").expectSame(as: otherScheme)
            try RecordedAnswer("err_401_refresh_as_bearer.json").expectSame(as: refreshAsBearer)
        }
    }

    @Test("an id too large for an integer is a 404, not a 422", arguments: ["reports", "photos"])
    func hugeID(kind: String) async throws {
        try await SandboxFixture.run { sandbox in
            // act
            let answer = try await sandbox.raw(
                .PATCH, "/api/v1/libraries/moderation/\(kind)/99999999999999999999999", token: try await sandbox.accessToken(),
                json: kind == "reports" ? #"{"status": "resolved"}"# : #"{"status": "approved"}"#)
            // check
            try RecordedAnswer("err_404_report_id_too_large.json").expectSame(as: answer)
        }
    }

    @Test("page_size=20.0 reads as 20; a real fraction is still an int_parsing 422")
    func integralFloatPageSize() async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let token = try await sandbox.accessToken()
            // act
            let whole = try await sandbox.raw(.GET, "/api/v1/libraries/moderation?status=pending&page=1&page_size=20.0", token: token)
            let fraction = try await sandbox.raw(.GET, "/api/v1/libraries/moderation?page_size=20.5", token: token)
            // check
            #expect(whole.status == 200)
            try RecordedAnswer("moderation_pending_page1.json").expectSameShape(as: whole)
            #expect((try whole.jsonObject()?["pagination"] as? [String: Any])?["page_size"] as? Int == 20)
            #expect(fraction.status == 422)
            #expect(fraction.text.contains("int_parsing"))
        }
    }

    @Test("a wrong method on auth/me lists GET and DELETE in Allow, as the real server does")
    func allowOnMe() async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let recorded = try RecordedAnswer("err_405_post_me.json")
            // act
            let answer = try await sandbox.raw(.POST, "/api/v1/auth/me", token: try await sandbox.accessToken(), json: "{}")
            // check
            #expect(answer.status == recorded.status)
            #expect(answer.header("allow") == recorded.headers["allow"])
            #expect(answer.header("content-type") == recorded.headers["content-type"])
            #expect(answer.body == recorded.body)
        }
    }

    @Test(
        "every answer carries the real server's security headers and Vary",
        arguments: [
            ("GET", "/api/v1/auth/me", true, "auth_me_staff.json"),
            ("GET", "/api/v1/libraries/moderation/summary", false, "err_401.json"),
            ("GET", "/api/v1/libraries/moderation?status=pending", true, "moderation_pending_page1.json"),
            ("GET", "/api/v1/libraries/moderation/pending", true, "moderation_pending_shortcut.json"),
            ("GET", "/api/v1/libraries/moderation?status=bogus", true, "err_422_bad_filter.json"),
            ("GET", "/api/v1/statistics/", false, "statistics.json"),
            ("GET", "/api/v1/statistics", false, "slash_statistics_noslash.json"),
            ("GET", "/api/v1/nope", false, "err_404_unknown_api_path.json"),
            ("DELETE", "/api/v1/libraries/moderation/some-slug", true, "err_405_delete_library.json"),
        ])
    func securityHeaders(method: String, path: String, signedIn: Bool, fixture: String) async throws {
        try await SandboxFixture.run { sandbox in
            // setup
            let recorded = try RecordedAnswer(fixture)
            // act
            let answer = try await sandbox.raw(.init(rawValue: method), path, token: signedIn ? try await sandbox.accessToken() : nil)
            // check
            #expect(answer.status == recorded.status)
            for name in ["x-content-type-options", "referrer-policy", "cross-origin-opener-policy", "x-frame-options", "content-language", "vary"] {
                #expect(answer.header(name) == recorded.headers[name], "\(method) \(path): \(name)")
            }
        }
    }

    private func pendingSlugs(_ sandbox: SandboxFixture, _ token: String) async throws -> [String] {
        let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending", token: token).jsonObject()
        return ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
    }
}
