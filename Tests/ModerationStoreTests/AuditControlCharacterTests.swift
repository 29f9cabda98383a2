import Foundation
import GRDB
import ModerationStore
import ModerationVocabulary
import Testing

/// What an audit entry's hash covers is exactly what SQLite stores: control characters are
/// made visible before either (a NUL would cut the stored text and break the chain for good).
@Suite("Audit: control characters")
struct AuditControlCharacterTests {
    /// Every control character the console escapes, and the three it keeps.
    static let controls =
        (0x00...0x1F).map { String(UnicodeScalar(UInt8($0))) } + ["\u{7F}"]
        + (0x80...0x9F).compactMap { Unicode.Scalar($0).map(String.init) }

    @Test("every control character in every text field: the entry verifies, and what is read back is what was hashed", arguments: controls)
    func everyFieldEveryControl(control: String) async throws {
        try await AuditLogFile.with(1) { log in
            // setup
            let text = "evil\(control)tail"
            var entry = AuditLogFile.entry(2, name: text)
            for field in [
                \AuditEntry.actorUsername, \.action, \.targetKind, \.targetId, \.targetSlug, \.targetName, \.statusBefore,
                \.statusAfter, \.reason, \.requestId, \.clientAddress, \.userAgent,
            ] as [WritableKeyPath<AuditEntry, String>] {
                entry[keyPath: field] = text
            }
            entry.outcomeDetail = text
            // act
            let appended = try await log.store.appendAudit(entry)
            // check
            let stored = try #require(try await log.store.auditEntry(id: appended.id ?? 0))
            let keeps = ["\t", "\n", "\r"].contains(control)
            #expect(stored.targetName == (keeps ? text : "evil\(ControlCharacters.escaped(control))tail"))
            #expect(stored.targetName.hasSuffix("tail"), "nothing is cut")
            #expect(stored.userAgent == appended.userAgent && stored.reason == appended.reason && stored.outcomeDetail == appended.outcomeDetail)
            #expect(stored.hash == appended.hash)
            #expect(log.store.auditEntryHashMatches(stored) == true)
            guard case .intact(let count, _) = try await log.verdict() else {
                Issue.record("the chain broke: \(try await log.verdict())")
                return
            }
            #expect(count == 2)
        }
    }

    @Test("the escaping is visible and reversible by eye: NUL → ␀, ESC → ␛, DEL → ␡, C1 → <U+0085>; tab, LF and CR stay")
    func escapes() {
        #expect(ControlCharacters.escaped("a\u{0}b") == "a\u{2400}b")
        #expect(ControlCharacters.escaped("\u{1B}[31m") == "\u{241B}[31m")
        #expect(ControlCharacters.escaped("x\u{7F}") == "x\u{2421}")
        #expect(ControlCharacters.escaped("next\u{85}line") == "next<U+0085>line")
        #expect(ControlCharacters.escaped("a\tb\r\nc") == "a\tb\r\nc")
        #expect(ControlCharacters.escaped("plain ‏עברית 📚 <script>") == "plain ‏עברית 📚 <script>")
    }

    @Test("a chain broken by an entry stored cut at a NUL (as older consoles did) is re-anchored with an audited entry, without a rewrite")
    func reanchorCutEntry() async throws {
        try await AuditLogFile.with(4) { log in
            // setup: entry 2 as an older console left it, its stored login cut at the NUL its hash covered
            try await log.tamperer.write { db in
                try db.execute(sql: "UPDATE auditEntry SET targetName = 'evil' WHERE id = 2")
            }
            guard case .broken(2, let reason) = try await log.verdict() else {
                Issue.record("expected a break at entry 2, got \(try await log.verdict())")
                return
            }
            #expect(reason.hasPrefix(AuditChainVerdict.contentMismatchPrefix))
            let hashBefore = try #require(try await log.store.auditEntry(id: 2)?.hash)
            // act
            var acknowledgement = AuditLogFile.entry(9, name: "")
            acknowledgement.actorUsername = "cli:operator"
            acknowledgement.reason = "sign-in typed with a NUL, stored cut"
            let reanchorID = try await log.store.reanchorAudit(at: 2, acknowledgement: acknowledgement)
            // check
            guard case .intact(let count, _) = try await log.verdict() else {
                Issue.record("still broken: \(try await log.verdict())")
                return
            }
            #expect(count == 5, "four entries and the re-anchor")
            let record = try #require(try await log.store.auditEntry(id: reanchorID))
            #expect(record.action == AuditEntry.reanchorAction && record.targetId == "2" && record.targetSlug == hashBefore)
            #expect(record.reason == "sign-in typed with a NUL, stored cut" && record.actorUsername == "cli:operator")
            #expect(try await log.store.auditEntry(id: 2)?.targetName == "evil", "the damaged entry is kept as it is")
        }
    }

    @Test("a re-anchor refuses what is not damage to one entry's contents: an intact chain, a later break, a removed entry")
    func reanchorRefusals() async throws {
        try await AuditLogFile.with(5) { log in
            let acknowledgement = AuditLogFile.entry(9, name: "")
            await #expect(throws: AuditReanchorError.chainIntact) { try await log.store.reanchorAudit(at: 2, acknowledgement: acknowledgement) }
            try await log.tamperer.write { db in
                try db.execute(sql: "UPDATE auditEntry SET targetName = 'changed' WHERE id = 4")
                try db.execute(sql: "DELETE FROM auditEntry WHERE id = 2")
            }
            // The first break is the removal (entry 3 no longer links): that is never acknowledged.
            await #expect(throws: AuditReanchorError.notContentDamage) { try await log.store.reanchorAudit(at: 3, acknowledgement: acknowledgement) }
            await #expect(throws: AuditReanchorError.notFirstBreak(firstBreak: 3)) {
                try await log.store.reanchorAudit(at: 4, acknowledgement: acknowledgement)
            }
            #expect(try await log.store.auditEntryCount() == 4, "nothing was written")
        }
    }
}
