import Foundation
import GRDB
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Photo and thumbnail addresses come from Book Corners: only http(s) ones on its own origin
/// reach `<img src>` and `<a href>`; the rest show as "no photo".
@Suite("Media addresses from the backend on pages", .timeLimit(.minutes(3)))
struct MediaURLPageTests {
    static let hostile = [
        "javascript:alert(document.domain)", "data:text/html,<script>alert(1)</script>", "//evil.example/x.png",
        "http://evil.example/tracker.png",
    ]

    /// The planted items: a pending library, an open report and a pending photo, each with hostile addresses.
    private struct Planted {
        let librarySlug: String
        let reportID: Int64
    }

    /// Gives the oldest pending library, open report and pending photo of the sandbox the
    /// hostile addresses `photo` and `thumbnail`, before the console mirrors them.
    private func plant(photo: String, thumbnail: String, inSandboxAt path: String) async throws -> Planted {
        let database = try DatabaseQueue.waiting(path: path)
        defer { try? database.close() }
        return try await database.write { db in
            let slug = try #require(try String.fetchOne(db, sql: "SELECT slug FROM library WHERE status = 'pending' ORDER BY createdAt LIMIT 1"))
            try db.execute(sql: "UPDATE library SET photoUrl = ?, thumbnailUrl = ? WHERE slug = ?", arguments: [photo, thumbnail, slug])
            let reportID = try #require(try Int64.fetchOne(db, sql: "SELECT id FROM report WHERE status = 'open' ORDER BY createdAt DESC LIMIT 1"))
            try db.execute(sql: "UPDATE report SET photoUrl = ? WHERE id = ?", arguments: [photo, reportID])
            // The report's library shows its photo beside the report too.
            try db.execute(
                sql: "UPDATE library SET photoUrl = ?, thumbnailUrl = ? WHERE id = (SELECT libraryId FROM report WHERE id = ?)",
                arguments: [photo, thumbnail, reportID])
            try db.execute(sql: "UPDATE photo SET photoUrl = ?, thumbnailUrl = ? WHERE status = 'pending'", arguments: [photo, thumbnail])
            return Planted(librarySlug: slug, reportID: reportID)
        }
    }

    @Test("a hostile photo or thumbnail address is never written into a page; the item shows as having no photo", arguments: hostile)
    func hostileAddressesShowNoPhoto(address: String) async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: the backend answers the hostile address for every photo field
            let planted = try await plant(photo: address, thumbnail: address, inSandboxAt: directory.path("sandbox.sqlite"))
            try await browser.signIn()
            // act
            let pages = [
                "/libraries", "/libraries?order=oldest", "/libraries/\(planted.librarySlug)", "/reports", "/reports/\(planted.reportID)",
                "/photos",
            ]
            for path in pages {
                let page = try await browser.get(path)
                // check
                #expect(page.status == .ok, "\(path)")
                for marker in ["evil.example", "javascript:", "data:text/html"] {
                    #expect(!page.html.contains(marker), "\(path) carries \(marker)")
                }
            }
            let list = try await browser.get("/libraries?order=oldest")
            let row = list.html.components(separatedBy: "<tr").first { $0.contains("/libraries/\(planted.librarySlug)") } ?? ""
            #expect(row.contains("no photo"), "the planted library's row says it has no photo")
            let library = try await browser.get("/libraries/\(planted.librarySlug)")
            #expect(!library.html.contains("<img src=\"\""), "no empty image either")
            let report = try await browser.get("/reports/\(planted.reportID)")
            #expect(report.html.contains("No photo was sent with the report."))
        }
    }

    @Test("a photo on the backend's own origin, relative or absolute, is shown")
    func ownOriginShown() async throws {
        try await ConsoleFixture.withConsole { browser, sandbox, directory in
            // setup
            let origin = "http://127.0.0.1:\(sandbox.port)"
            let planted = try await plant(
                photo: "/media/libraries/photos/2026/11/own.jpg", thumbnail: origin + "/media/libraries/photos/thumbnails/own-thumb.jpg",
                inSandboxAt: directory.path("sandbox.sqlite"))
            try await browser.signIn()
            // act
            let list = try await browser.get("/libraries?order=oldest")
            let report = try await browser.get("/reports/\(planted.reportID)")
            // check
            #expect(list.html.contains("src=\"\(origin)/media/libraries/photos/thumbnails/own-thumb.jpg\""))
            #expect(report.html.contains("\(origin)/media/libraries/photos/2026/11/own.jpg"))
        }
    }
}

extension MediaURLPageTests {
    @Test("addresses mirrored before they were checked are emptied when the console starts: its list says no photo at once")
    func startForgetsOldAddresses() async throws {
        let sandboxOrigin = Recorder<String>()
        try await ConsoleFixture.withConsole(
            mirror: .empty,
            configure: { settings in
                // setup: a mirror an older console filled unchecked, before this one starts on it
                let now = Date()
                let origin = settings.backendURL.absoluteString.replacingOccurrences(of: "/api/v1/", with: "")
                sandboxOrigin.record(origin)
                try? await ModerationStore(path: settings.databasePath).upsertMirror(
                    libraries: [
                        MirrorLibrary(
                            id: 990_001, slug: "old-unchecked", name: "Old unchecked", description: "", address: "Via Roma 1", city: "Rome", country: "IT",
                            postalCode: "", lat: 41.9, lng: 12.5, photoUrl: "javascript:alert(1)", thumbnailUrl: "//evil.example/t.png", status: .pending,
                            rejectionReason: "", submitterId: nil, submitterUsername: nil, createdAt: now, lastConfirmedAt: now, record: Data("{}".utf8)),
                        MirrorLibrary(
                            id: 990_002, slug: "old-allowed", name: "Old allowed", description: "", address: "Via Roma 2", city: "Rome", country: "IT",
                            postalCode: "", lat: 41.9, lng: 12.5, photoUrl: origin + "/media/p.jpg", thumbnailUrl: origin + "/media/t.jpg", status: .pending,
                            rejectionReason: "", submitterId: nil, submitterUsername: nil, createdAt: now, lastConfirmedAt: now),
                    ], at: now)
            }
        ) { browser, _, directory in
            try await browser.signIn()
            // act
            let list = try await browser.get("/libraries")
            // check
            let origin = try #require(sandboxOrigin.values.first)
            #expect(!list.html.contains("evil.example") && !list.html.contains("javascript:"))
            #expect(list.html.contains("src=\"\(origin)/media/t.jpg\""), "an allowed address stays")
            let row = list.html.components(separatedBy: "<tr").first { $0.contains("/libraries/old-unchecked") } ?? ""
            #expect(row.contains("no photo"))
            let stored = try #require(try await ModerationStore(path: directory.path("console.sqlite")).mirroredLibrary(slug: "old-unchecked"))
            #expect(stored.photoUrl == "" && stored.thumbnailUrl == "" && stored.record == nil)
        }
    }
}
