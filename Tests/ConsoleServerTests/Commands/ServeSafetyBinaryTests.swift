import Foundation
import GRDB
import ModerationStore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 29: what `console serve` refuses to do, tried on the built binary: start on a damaged
/// database or call it ready, leave its files readable by others, or answer benchmark pages.
@Suite("console serve: damaged databases, file modes, no benchmark routes", .timeLimit(.minutes(3)))
struct ServeSafetyBinaryTests {
    private func console(_ arguments: String...) throws -> ChildProcess {
        try ChildProcess.run(ConsoleBinary.path, arguments)
    }

    /// `console serve` on `database` against a backend that is never there, with `extra` flags.
    private func serve(
        _ database: String, port: Int, directory: TemporaryDirectory, log: String, extra: [String] = [], environment: [String] = []
    ) throws -> SpawnedProcess {
        let arguments =
            [
                "serve", "--no-metrics", "--no-mirror", "--no-watch", "--database", database, "--port", String(port),
                "--backend-url", "http://127.0.0.1:1/api/v1/", "--log-level", "error",
                "--templates", RepositoryPaths.templates, "--public", RepositoryPaths.publicFiles,
            ] + extra
        if environment.isEmpty { return try ConsoleBinary.start(arguments, in: directory.url, log: log) }
        return try ConsoleBinary.start(environment + [ConsoleBinary.path] + arguments, executable: "/usr/bin/env", in: directory.url, log: log)
    }

    /// A database of a few entries, its write-ahead log folded in, so the main file holds every page.
    private func database(in directory: TemporaryDirectory) async throws -> String {
        let path = directory.path("console.sqlite")
        let store = try ModerationStore(path: path)
        for index in 1...3 {
            try await store.appendAudit(
                AuditEntry(
                    recordedAt: Date(), actorId: 3, actorUsername: "staff", action: "library.approve", targetKind: "library", targetId: "\(index)",
                    targetSlug: "s\(index)", targetName: "Corner \(index)", statusBefore: "pending", statusAfter: "approved", reason: "",
                    outcome: .applied, backendStatus: 200, requestId: "r\(index)", clientAddress: "127.0.0.1", userAgent: "test",
                    itemCreatedAt: nil, actionId: nil))
        }
        let queue = try DatabaseQueue.waiting(path: path)
        try await queue.writeWithoutTransaction { db in _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try queue.close()
        return path
    }

    /// Overwrites pages 2 to 4 of the file with garbage, as a failing disk or a stray write would.
    static func damage(_ path: String) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        let header = try handle.read(upToCount: 100) ?? Data()
        let pageSize = header.count >= 18 ? Int(header[16]) << 8 | Int(header[17]) : 4096
        try handle.seek(toOffset: UInt64(pageSize))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: pageSize * 3))
        try handle.synchronize()
    }

    private func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? nil
    }

    @Test(
        "a damaged database: serve refuses to start, naming the restore command; the named command restores the backup and serve then starts, every file 0600")
    func damagedDatabaseRefused() async throws {
        // setup: a backup, then pages of the database overwritten
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await database(in: directory)
        let backup = directory.path("backup.sqlite")
        #expect(try console("backup", "--database", path, "--to", backup).status == 0)
        try Self.damage(path)

        // act
        let port = try FreePort.find()
        let log = directory.path("serve.log")
        let refused = try serve(path, port: port, directory: directory, log: log)
        let status = refused.exitCode(within: 60)
        let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""

        // check: it stopped, in words that name the way back
        #expect(status != nil && status != 0, "serve started on a damaged database: \(said)")
        #expect(said.contains("is damaged"), "\(said)")
        #expect(said.contains("console restore --database \(path) --from"), "\(said)")

        // act: the command it named
        let restored = try console("restore", "--database", path, "--from", backup)
        #expect(restored.status == 0, "\(restored.errorOutput)")
        let started = try serve(path, port: port, directory: directory, log: directory.path("serve2.log"))
        defer { ConsoleBinary.stop(started) }
        try await ConsoleBinary.waitUntilUp(started, port: port, log: directory.path("serve2.log"))

        // check: sessions and sealed tokens are in all of these: readable by the owner alone
        for file in [path, path + "-wal", path + "-shm", path + ".before-restore"] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
            #expect(mode(file) == 0o600, "\(file) is \(String(mode(file) ?? 0, radix: 8))")
        }
    }

    @Test("/readyz turns 503 'database: damaged' once pages of the running console's file are overwritten")
    func readinessSeesDamage() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await database(in: directory)
        let port = try FreePort.find()
        let log = directory.path("serve.log")
        let running = try serve(path, port: port, directory: directory, log: log, extra: ["--readiness-integrity-interval", "1"])
        defer { ConsoleBinary.stop(running) }
        try await ConsoleBinary.waitUntilUp(running, port: port, log: log)
        let before = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/readyz").text
        #expect(!before.contains("damaged"), "\(before)")

        // act
        try Self.damage(path)
        var answer = (status: 0, text: "")
        for _ in 0..<100 {
            let reply = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/readyz")
            answer = (reply.status, reply.text)
            if answer.text.contains("damaged") { break }
            try await Task.sleep(for: .milliseconds(200))
        }

        // check
        #expect(answer.status == 503 && answer.text.contains("database: damaged"), "\(answer)")
    }

    @Test("serve with CONSOLE_BENCHMARK_CONSTANT_DIR set answers no saved page, signed in or not")
    func noBenchmarkRoutes() async throws {
        // setup: a saved signed-in page where the old variable pointed
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pages = directory.path("pages")
        try FileManager.default.createDirectory(atPath: pages, withIntermediateDirectories: true)
        try "<p>staff-only dashboard: 42 pending</p>".write(toFile: pages + "/dashboard.html", atomically: true, encoding: .utf8)
        let port = try FreePort.find()
        let log = directory.path("serve.log")
        let running = try serve(
            directory.path("console.sqlite"), port: port, directory: directory, log: log, environment: ["CONSOLE_BENCHMARK_CONSTANT_DIR=\(pages)"])
        defer { ConsoleBinary.stop(running) }
        try await ConsoleBinary.waitUntilUp(running, port: port, log: log)

        // act
        let open = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/benchmark/open/dashboard")
        let constant = try await rawHTTP(.GET, "http://127.0.0.1:\(port)/benchmark/constant/dashboard")

        // check
        #expect(open.status == 404 && !open.text.contains("42 pending"), "\(open.status)")
        #expect(!constant.text.contains("42 pending"))
    }
}
