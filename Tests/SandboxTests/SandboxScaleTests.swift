import Foundation
import GRDB
import Sandbox
import TestSupport
import Testing

/// `console sandbox --libraries N`: a deterministic data set of any size up to 50 000.
@Suite("Sandbox: seeding at scale", .timeLimit(.minutes(3)))
struct SandboxScaleTests {
    @Test("50 000 libraries seed in one go, in the default data set's proportions, and every one is listed")
    func fiftyThousand() async throws {
        // setup
        let started = Date()
        try await SandboxFixture.run(libraries: 50_000) { sandbox in
            let seconds = Date().timeIntervalSince(started)
            let token = try await sandbox.accessToken()
            // act
            let summary = try #require(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/summary", token: token).jsonObject())
            let all = try await total(sandbox, token, "/api/v1/libraries/moderation?status=all&page_size=1")
            let rejected = try await total(sandbox, token, "/api/v1/libraries/moderation?status=rejected&page_size=1")
            let reports = try await total(sandbox, token, "/api/v1/libraries/moderation/reports?page_size=1")
            let photos = try await total(sandbox, token, "/api/v1/libraries/moderation/photos?page_size=1")
            let lastPage = try await sandbox.raw(.GET, "/api/v1/libraries/moderation?status=all&page=1000&page_size=50", token: token)
            // check
            print("50 000 libraries: sandbox seeded and answering after \(String(format: "%.1f", seconds)) s")
            #expect(all == 50_000)
            #expect(summary["pending_libraries_count"] as? Int == 6_000)
            #expect(rejected == 2_400)
            #expect(summary["total_libraries"] as? Int == 41_600, "approved ones")
            #expect(reports == 2_500)
            #expect(photos == 2_000)
            #expect(summary["open_reports_count"] as? Int == 1_400)
            #expect(summary["pending_photos_count"] as? Int == 1_200)
            #expect(lastPage.status == 200, "page 1000 of 50 is the last the backend allows")
            #expect(seconds < 60, "one transaction: seconds, not minutes, even on a busy machine")
        }
    }

    @Test("the same seed gives the same libraries; another seed gives others")
    func deterministic() async throws {
        // act
        let first = try await pendingSlugs(seed: 7)
        let again = try await pendingSlugs(seed: 7)
        let other = try await pendingSlugs(seed: 8)
        // check
        #expect(first.count == 50)
        #expect(first == again)
        #expect(first != other)
    }

    @Test(
        "crowded queues: more than 500 pending photos and open reports of one reason, the oldest seeded ones behind them, the usual data and its ids unchanged")
    func crowdedQueues() async throws {
        // act
        let usual = try await seededRows(crowdedQueues: 0)
        let crowded = try await seededRows(crowdedQueues: 550)
        // check
        #expect(crowded.usual == usual.usual, "libraries, users, reports and photos of the usual data set are the same, with the same ids")
        #expect(usual.pendingPhotos == 12)
        #expect(crowded.pendingPhotos == 12 + 550)
        #expect(crowded.openDamaged - usual.openDamaged == 550)
        #expect(crowded.oldestPendingPhoto == usual.oldestPendingPhoto, "the oldest pending photo is a seeded one, now behind 550 newer")
        #expect(crowded.oldestPendingPhotoPage > 11, "beyond the 500 newest: \(crowded.oldestPendingPhotoPage)")
    }

    private struct SeededRows: Equatable {
        var usual: [String] = []
        var pendingPhotos = 0
        var openDamaged = 0
        var oldestPendingPhoto = 0
        var oldestPendingPhotoPage = 0
    }

    private func seededRows(crowdedQueues: Int) async throws -> SeededRows {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("sandbox.sqlite")
        return try await SandboxFixture.run(databasePath: path, crowdedQueues: crowdedQueues) { sandbox in
            let token = try await sandbox.accessToken()
            var rows = SeededRows()
            rows.pendingPhotos = try await total(sandbox, token, "/api/v1/libraries/moderation/photos?status=pending&page_size=1") ?? -1
            rows.openDamaged = try await total(sandbox, token, "/api/v1/libraries/moderation/reports?status=open&reason=damaged&page_size=1") ?? -1
            let lastPage = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/photos?status=pending&page=1000&page_size=50", token: token).jsonObject()
            rows.oldestPendingPhoto = ((lastPage?["items"] as? [[String: Any]])?.last?["id"] as? Int) ?? -1
            rows.oldestPendingPhotoPage = ((lastPage?["pagination"] as? [String: Any])?["page"] as? Int) ?? -1
            let database = try Self.reader(path)
            defer { try? database.close() }
            // Everything but the times, which follow the moment of seeding.
            rows.usual = try await database.read { db in
                try String.fetchAll(db, sql: "SELECT id || ' ' || username || ' ' || passwordHash FROM user ORDER BY id")
                    + String.fetchAll(db, sql: "SELECT id || ' ' || slug || ' ' || status || ' ' || name FROM library ORDER BY id")
                    + String.fetchAll(db, sql: "SELECT id || ' ' || libraryId || ' ' || reason || ' ' || status FROM report WHERE id <= 25 ORDER BY id")
                    + String.fetchAll(db, sql: "SELECT id || ' ' || libraryId || ' ' || caption || ' ' || status FROM photo WHERE id <= 20 ORDER BY id")
            }
            return rows
        }
    }

    private func pendingSlugs(seed: UInt64) async throws -> [String] {
        try await SandboxFixture.run(libraries: 2_000, seed: seed) { sandbox in
            let token = try await sandbox.accessToken()
            let list = try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending?page=3&page_size=50", token: token).jsonObject()
            return ((list?["items"] as? [[String: Any]]) ?? []).compactMap { $0["slug"] as? String }
        }
    }

    /// The sandbox's file opened beside it (or just after it stopped): a busy file waits, as the
    /// sandbox's own connections do, instead of failing "database is locked" at once (seen once
    /// under a loaded machine, as the stopped sandbox checkpointed its WAL).
    private static func reader(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    private func total(_ sandbox: SandboxFixture, _ token: String, _ path: String) async throws -> Int? {
        let list = try await sandbox.raw(.GET, path, token: token).jsonObject()
        return (list?["pagination"] as? [String: Any])?["total"] as? Int
    }

    @Test("a page of every status is read in order from an index, not by sorting the whole table")
    func listsReadInIndexOrder() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("sandbox.sqlite")
        try await SandboxFixture.run(databasePath: path) { _ in }
        // act
        let plans = try await Self.reader(path).read { db in
            try [
                "SELECT * FROM library ORDER BY createdAt DESC, id DESC LIMIT 50 OFFSET 500",
                "SELECT * FROM report ORDER BY createdAt DESC, id DESC LIMIT 50",
                "SELECT * FROM report WHERE status = 'open' ORDER BY createdAt DESC, id DESC LIMIT 50",
                "SELECT * FROM photo ORDER BY createdAt DESC, id DESC LIMIT 50",
                "SELECT * FROM photo WHERE status = 'pending' ORDER BY createdAt DESC, id DESC LIMIT 50",
            ].map { sql in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String? ?? "" }.joined(separator: "; ") }
        }
        // check
        for plan in plans {
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
            #expect(plan.contains("USING INDEX"), "\(plan)")
        }
    }
}
