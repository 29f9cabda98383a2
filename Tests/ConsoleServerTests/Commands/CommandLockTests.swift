import Foundation
import ModerationStore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 29 item 12: every command that opens the database holds the lock `console serve`
/// holds, so none writes into a file a restore is replacing (it would land in
/// `.before-restore`), and a restore never starts under one. Run as the built binary.
@Suite("Commands and restore share the database lock", .timeLimit(.minutes(3)))
struct CommandLockTests {
    private func console(_ arguments: String...) throws -> ChildProcess {
        try ChildProcess.run(ConsoleBinary.path, arguments)
    }

    private static let token = String(repeating: "c3", count: 32)
    private static let export = """
        [{"model": "users.devicetoken", "pk": 21, "fields": {"user": 5, "token": "\(token)", "environment": "production", "is_active": true, "created_at": "2026-10-01T09:12:44Z", "updated_at": "2026-11-02T18:00:01Z"}}]
        """

    /// A database with `count` audit entries recorded long ago, and one imported device.
    private func database(in directory: TemporaryDirectory, entries count: Int) async throws -> String {
        let path = directory.path("console.sqlite")
        let store = try ModerationStore(path: path)
        for index in 1...count {
            try await store.appendAudit(
                AuditEntry(
                    recordedAt: Date(timeIntervalSince1970: 1_600_000_000 + Double(index)), actorId: 3, actorUsername: "staff",
                    action: "library.approve", targetKind: "library", targetId: "\(index)", targetSlug: "slug-\(index)", targetName: "Corner \(index)",
                    statusBefore: "pending", statusAfter: "approved", reason: "", outcome: .applied, backendStatus: 200, requestId: "r\(index)",
                    clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil, actionId: nil))
        }
        try Self.export.write(toFile: directory.path("devices.json"), atomically: true, encoding: .utf8)
        #expect(try console("devices", "import", directory.path("devices.json"), "--database", path).status == 0)
        return path
    }

    @Test("while a restore holds the lock, prune, export, devices import and remove refuse in words and write nothing")
    func commandsRefuseDuringRestore() async throws {
        // setup: the lock a restore holds, taken exclusively
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await database(in: directory, entries: 3)
        let restore = try DatabaseLock.exclusive(databasePath: path)

        // act
        let runs = [
            ("audit prune", try console("audit", "prune", "--before", "2025-01-01", "--database", path)),
            ("audit export", try console("audit", "export", "--output", directory.path("out.csv"), "--database", path)),
            ("devices import", try console("devices", "import", directory.path("devices.json"), "--database", path)),
            ("devices remove", try console("devices", "remove", Self.token, "--database", path)),
        ]
        withExtendedLifetime(restore) {}

        // check: each said why, and nothing changed
        for (name, run) in runs {
            #expect(run.status == 1, "\(name): \(run.errorOutput)")
            #expect(run.errorOutput.contains("A restore is replacing this database right now"), "\(name): \(run.errorOutput)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("out.csv")), "no export written")
        let store = try ModerationStore(path: path)
        #expect(try await store.auditEntryCount() == 3, "no prune, no export entry")
        #expect(try await store.devices().map(\.token) == [Self.token])
    }
}
