import Foundation
import TestSupport
import Testing

@testable import BookCornersAPI

/// The real backend's recorded answers decode into the generated types, and every error
/// answer maps to a `BackendError` (or is recognised as not JSON).
@Suite("Recorded fixtures decode", .timeLimit(.minutes(3)))
struct FixtureDecodingTests {
    /// Which generated type each recorded success body is.
    static let successTypes: [(prefix: String, decode: @Sendable (Data) throws -> Void)] = [
        ("auth_login", { _ = try BackendJSON.decoder().decode(TokenPair.self, from: $0) }),
        ("auth_refresh", { _ = try BackendJSON.decoder().decode(Components.Schemas.AccessTokenOut.self, from: $0) }),
        ("auth_me", { _ = try BackendJSON.decoder().decode(Account.self, from: $0) }),
        ("moderation_summary", { _ = try BackendJSON.decoder().decode(ModerationSummary.self, from: $0) }),
        ("moderation_library_detail", { _ = try BackendJSON.decoder().decode(ModerationLibrary.self, from: $0) }),
        ("patch_library", { _ = try BackendJSON.decoder().decode(ModerationLibrary.self, from: $0) }),
        ("moderation_reports", { _ = try BackendJSON.decoder().decode(Components.Schemas.ReportModerationListOut.self, from: $0) }),
        ("moderation_photos", { _ = try BackendJSON.decoder().decode(Components.Schemas.PhotoModerationListOut.self, from: $0) }),
        ("moderation_", { _ = try BackendJSON.decoder().decode(Components.Schemas.LibraryModerationListOut.self, from: $0) }),
        ("slash_moderation_noslash", { _ = try BackendJSON.decoder().decode(Components.Schemas.LibraryModerationListOut.self, from: $0) }),
        ("patch_report", { _ = try BackendJSON.decoder().decode(ModerationReport.self, from: $0) }),
        ("patch_photo", { _ = try BackendJSON.decoder().decode(ModerationPhoto.self, from: $0) }),
        ("statistics", { _ = try BackendJSON.decoder().decode(Statistics.self, from: $0) }),
        ("slash_statistics_slash", { _ = try BackendJSON.decoder().decode(Statistics.self, from: $0) }),
        ("libraries_nearby", { _ = try BackendJSON.decoder().decode(Components.Schemas.LibraryListOut.self, from: $0) }),
        ("slash_libraries_slash", { _ = try BackendJSON.decoder().decode(Components.Schemas.LibraryListOut.self, from: $0) }),
        ("library_public_detail", { _ = try BackendJSON.decoder().decode(PublicLibrary.self, from: $0) }),
    ]

    static var allFixtures: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path)) ?? [])
            .filter { $0.hasSuffix(".json") && !$0.hasPrefix("openapi") }.sorted()
    }

    @Test("every recorded answer decodes or maps to an error", arguments: allFixtures)
    func fixture(name: String) throws {
        let headers = try Fixtures.headers(name)
        let statusLine =
            try String(contentsOf: Fixtures.directory.appendingPathComponent("headers/\((name as NSString).deletingPathExtension).txt"), encoding: .utf8)
            .split(separator: "\n").first ?? ""
        let status = try #require(Int(statusLine.split(separator: " ")[1]))
        let body = try Fixtures.data(name)
        if (200..<300).contains(status) {
            let decode = try #require(Self.successTypes.first { name.hasPrefix($0.prefix) }?.decode, "no type for \(name)")
            #expect(throws: Never.self) { try decode(body) }
        } else {
            let error = BackendErrorMapping.error(status: status, contentType: headers["content-type"], body: body, isSignIn: name.contains("login"))
            switch status {
            case 401: #expect(error == (name.contains("login") ? .invalidCredentials : .sessionExpired))
            case 403: #expect(error == .notStaff)
            case 404 where headers["content-type"]?.hasPrefix("application/json") == true: #expect(error == .notFound)
            case 422:
                guard case .validation(let fields) = error else { Issue.record("\(name): \(error)"); return }
                #expect(!fields.isEmpty && fields.allSatisfy { !$0.location.isEmpty && !$0.message.isEmpty })
            case 429:
                guard case .rateLimited(let seconds) = error else { Issue.record("\(name): \(error)"); return }
                #expect((1...300).contains(seconds))
            default: #expect(error == .unavailable(.notJSON(status: status)), "\(name) is not JSON")
            }
        }
    }

    @Test("429 takes details.retry_after; without it, the time to the next 300-second boundary")
    func retryAfter() throws {
        let withValue = BackendErrorMapping.error(
            status: 429, contentType: "application/json; charset=utf-8", body: try Fixtures.data("err_429_write.json"), isSignIn: false)
        #expect(withValue == .rateLimited(retryAfterSeconds: 137))
        let now = Date(timeIntervalSince1970: 1_795_322_800)  // 100 s into a window
        let without = BackendErrorMapping.error(
            status: 429, contentType: "application/json", body: try Fixtures.data("err_429_login.json"), isSignIn: true, now: now)
        #expect(without == .rateLimited(retryAfterSeconds: 200))
    }

    @Test("the 401 body's internal text never reaches the staff message")
    func noInternalText() throws {
        let error = BackendErrorMapping.error(
            status: 401, contentType: "application/json", body: try Fixtures.data("err_401_invalid_token.json"), isSignIn: false)
        #expect(error == .sessionExpired)
        #expect(!error.staffMessage.contains("ErrorDetail"))
    }

    @Test("timestamps decode with and without fractional seconds; unknown fields are ignored")
    func timestampsAndUnknownFields() throws {
        let json = #"""
            {"id": 7, "library": {"id": 1, "slug": "s", "name": "n", "address": "", "city": "c", "country": "IT", "status": "approved", "extra": 1},
             "created_by": null, "reason": "missing", "details": "", "photo_url": "", "status": "open",
             "created_at": "2026-11-22T04:45:21Z", "brand_new_field": {"nested": true}}
            """#
        let report = try BackendJSON.decoder().decode(ModerationReport.self, from: Data(json.utf8))
        #expect(report.createdAt == Date(timeIntervalSince1970: 1_795_322_721))
        #expect(report.createdBy == nil)
        let parsed = try #require(BackendTimestamp.parse("2026-11-22T04:45:21.090Z"))
        #expect(abs(parsed.timeIntervalSince1970 - 1_795_322_721.09) < 0.000_5)
        #expect(BackendTimestamp.parse("2026-06-15T14:30:00.123456Z").map { $0.timeIntervalSince1970 } ?? 0 > 1_781_533_800.1234)
        #expect(BackendTimestamp.format(Date(timeIntervalSince1970: 1_795_322_721.09)) == "2026-11-22T04:45:21.090Z")
        #expect(BackendTimestamp.format(Date(timeIntervalSince1970: 1_795_322_721)) == "2026-11-22T04:45:21Z")
        #expect(BackendTimestamp.parse("yesterday") == nil)
    }

    @Test("a library's nullable fields decode as nil or values")
    func nullableFields() throws {
        let detail = try BackendJSON.decoder().decode(ModerationLibrary.self, from: Fixtures.data("moderation_library_detail.json"))
        #expect(detail.createdBy == nil && detail.capacity == nil)
        let approved = try BackendJSON.decoder().decode(ModerationLibrary.self, from: Fixtures.data("patch_library_approve.json"))
        #expect(approved.createdBy?.username == "alice")
    }
}
