import Foundation
import GRDB
import ModerationStore
import Testing

/// Outcomes are a closed set with the explanation in its own field; entries written before
/// that (one text, "failed (wrong credentials)") keep verifying, read as the closed set, and
/// are found by the outcome filter.
@Suite("Audit outcomes")
struct AuditOutcomeTests {
    /// Two entries exactly as the console wrote them before migration v6: the outcome and its
    /// explanation in one column. Their hashes were computed over the encoding of that time:
    /// `{"id":1,"recordedAt":1790856000000,"actorId":null,"actorUsername":"guess",
    /// "action":"session.signIn",…,"outcome":"failed (wrong credentials)",…,"previousHash":"000…"}`.
    private static let legacyRows: [(id: Int, recordedAt: String, actor: String, action: String, outcome: String, previous: String, hash: String)] = [
        (
            1, "2026-10-01 12:00:00.000", "guess", "session.signIn", "failed (wrong credentials)", AuditEntry.genesisHash,
            "2d5cec3a93325fecbe9b4ebc0d67f3137b2e70a31df72ec5f689dfdc0fbbc97e"
        ),
        (
            2, "2026-10-01 12:01:00.000", "staff", "session.end", "expired",
            "2d5cec3a93325fecbe9b4ebc0d67f3137b2e70a31df72ec5f689dfdc0fbbc97e",
            "73b544acf5f4fa74c078819d93d2a2be81ccf512868fa5bcb193f8a7d36aa328"
        ),
    ]

    private func withLegacyLog(_ body: (ModerationStore) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outcome-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("console.sqlite").path
        let store = try ModerationStore(path: path)
        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            for row in Self.legacyRows {
                try db.execute(
                    sql: """
                        INSERT INTO auditEntry (id, recordedAt, actorId, actorUsername, action, targetKind, targetId, targetSlug, targetName,
                            statusBefore, statusAfter, reason, outcome, backendStatus, requestId, clientAddress, userAgent, itemCreatedAt,
                            actionId, previousHash, hash)
                        VALUES (?, ?, NULL, ?, ?, 'session', '', '', '', '', '', '', ?, NULL, ?, '192.0.2.1', 'ua', NULL, NULL, ?, ?)
                        """, arguments: [row.id, row.recordedAt, row.actor, row.action, row.outcome, "r\(row.id)", row.previous, row.hash])
            }
        }
        try database.close()
        try await body(store)
    }

    private func signIn(_ outcome: AuditOutcome, detail: String) -> AuditEntry {
        AuditEntry(
            recordedAt: Date(timeIntervalSince1970: 1_790_856_180), actorId: nil, actorUsername: "guess", action: AuditEntry.signInAction,
            targetKind: "session", targetId: "", targetSlug: "", targetName: "", statusBefore: "", statusAfter: "", reason: "",
            outcome: outcome, outcomeDetail: detail, backendStatus: nil, requestId: "r3", clientAddress: "192.0.2.1", userAgent: "ua",
            itemCreatedAt: nil, actionId: nil)
    }

    @Test("entries written before outcomes had their own explanation still verify, in the database and in exports")
    func legacyEntriesVerify() async throws {
        try await withLegacyLog { store in
            // setup: a new entry chained after the old ones, its explanation in its own field
            try await store.appendAudit(signIn(.failed, detail: "wrong credentials"))

            // act
            let verdict = try await store.verifyAuditChain()
            let csv = await AuditExportFile.verify(try AuditExportFile.entries(in: try store.exportedText(.csv)))
            let ndjson = await AuditExportFile.verify(try AuditExportFile.entries(in: try store.exportedText(.ndjson)))

            // check
            guard case .intact(entries: 3, let head) = verdict else {
                Issue.record("the chain: \(verdict)")
                return
            }
            #expect(csv == .intact(entries: 3, head: head, gaps: 0))
            #expect(ndjson == .intact(entries: 3, head: head, gaps: 0))
        }
    }

    @Test("old entries read as the closed set, with their explanation; the filter finds old and new alike")
    func legacyEntriesReadTyped() async throws {
        try await withLegacyLog { store in
            // setup
            try await store.appendAudit(signIn(.failed, detail: "wrong credentials"))

            // act
            let entries = try await store.auditEntries(limit: 10).sorted { ($0.id ?? 0) < ($1.id ?? 0) }

            // check
            #expect(entries.map(\.outcome) == [.failed, .ended, .failed])
            #expect(entries.map(\.outcomeDetail) == ["wrong credentials", "expired", "wrong credentials"])
            #expect(entries.map(\.outcomeText) == ["failed (wrong credentials)", "ended (expired)", "failed (wrong credentials)"])
            #expect(try await store.auditEntryCount(AuditFilter(outcome: .failed)) == 2)
            #expect(try await store.auditEntryCount(AuditFilter(outcome: .ended)) == 1)
            #expect(try await store.auditEntryCount(AuditFilter(outcome: .refused)) == 0)
        }
    }

    @Test("an explanation is covered by the hash: changing it breaks the chain")
    func explanationHashed() async throws {
        try await withLegacyLog { store in
            // setup
            try await store.appendAudit(signIn(.failed, detail: "wrong credentials"))
            var entry = try #require(try await store.auditEntry(id: 3))

            // act
            entry.outcomeDetail = "too many attempts"

            // check
            #expect(entry.computedHash() != entry.hash)
        }
    }

    @Test("an export made before the explanation had its own column still reads back and verifies")
    func olderExportReads() async throws {
        try await withLegacyLog { store in
            // setup: today's CSV export without the outcomeDetail column is what older consoles wrote
            let csv = try await store.exportedText(.csv)
            let records = try AuditCSV.records(in: csv)
            let column = try #require(records.first?.firstIndex(of: "outcomeDetail"))
            let older =
                records.map { record in
                    record.enumerated().filter { $0.offset != column }.map { AuditCSV.field($0.element) }.joined(separator: ",")
                }.joined(separator: "\r\n") + "\r\n"

            // act
            let verdict = AuditExportFile.verify(try AuditExportFile.entries(in: older))

            // check
            #expect(verdict == .intact(entries: 2, head: Self.legacyRows[1].hash, gaps: 0))
        }
    }
}
