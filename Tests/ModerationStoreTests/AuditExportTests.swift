import Foundation
import ModerationStore
import Testing

@Suite("Audit export")
struct AuditExportTests {
    static let hostileNames = [
        "Comma, inside", "Quote \" inside", "\"Starts with a quote", "Line\nbreak", "Carriage\r\nreturn", "Emoji 📚🏳️‍🌈",
        "مكتبة الحي الصغيرة", "Mixed \u{202E}evil\u{202C} direction", "<script>alert('x')</script>", "", " padded ", "=SUM(A1:A9)",
        "Trailing comma,", "Tab\there", "Backslash \\ and \\\"",
    ]

    private func export(_ store: ModerationStore, _ format: AuditExportFormat, filter: AuditFilter = AuditFilter(), batchSize: Int = 4) async throws -> String {
        try await store.exportedText(format, filter: filter, batchSize: batchSize)
    }

    @Test("CSV round-trips commas, quotes, line breaks, emoji and right-to-left text, and re-verifies")
    func csvRoundTrip() async throws {
        try await AuditLogFile.with(Self.hostileNames.count, names: { Self.hostileNames[$0 - 1] }) { log in
            let csv = try await export(log.store, .csv)
            #expect(csv.hasPrefix(AuditExporter.columns.joined(separator: ",") + "\r\n"))
            let entries = try AuditCSV.entries(in: csv)
            let stored = try await log.store.auditEntries(limit: 100).reversed()
            #expect(entries.map(\.targetName) == Self.hostileNames)
            #expect(entries.map(\.hash) == stored.map(\.hash))
            var previous = AuditEntry.genesisHash
            for entry in entries {
                #expect(entry.previousHash == previous)
                #expect(entry.computedHash() == entry.hash, "entry \(entry.id ?? 0) re-verifies from the file alone")
                previous = entry.hash
            }
        }
    }

    @Test("NDJSON has one object per line with the same values and hashes")
    func ndjson() async throws {
        try await AuditLogFile.with(Self.hostileNames.count, names: { Self.hostileNames[$0 - 1] }) { log in
            let lines = try await export(log.store, .ndjson).split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "")
            let objects = try lines.dropLast().map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(objects.compactMap { $0["targetName"] as? String } == Self.hostileNames)
            #expect(objects.first?["recordedAt"] as? String == "2026-11-18T11:07:40.456Z")
            #expect(objects.first?["previousHash"] as? String == AuditEntry.genesisHash)
            #expect(Set(objects.first?.keys.map { $0 } ?? []) == Set(AuditExporter.columns))
        }
    }

    @Test("an export keeps to the filter and the range")
    func filtered() async throws {
        try await AuditLogFile.with(12) { (log: AuditLogFile) throws in
            let filter = AuditFilter(
                actorUsername: "staff", from: AuditLogFile.start.addingTimeInterval(3 * 60), to: AuditLogFile.start.addingTimeInterval(9 * 60))
            let entries = try await AuditCSV.entries(in: try export(log.store, .csv, filter: filter))
            #expect(entries.compactMap(\.id) == [4, 6, 8])
            #expect(try await log.store.auditEntryCount(filter) == 3)
            let slugMatches = try await AuditCSV.entries(in: try export(log.store, .csv, filter: AuditFilter(targetText: "slug-1")))
            #expect(slugMatches.compactMap(\.id) == [1, 10, 11, 12])
            #expect(try await AuditCSV.entries(in: try export(log.store, .csv, filter: AuditFilter(targetText: "%"))).isEmpty)
        }
    }

    /// Values a spreadsheet would run as a formula, values that only look close, and values
    /// that already start with the quote the neutralisation adds.
    static let formulaNames = [
        "=HYPERLINK(\"http://evil.example/?x\",\"Click\")", "+1+1", "-2+3", "@SUM(A1:A2)", "\tTabbed", "\rReturn", "'=already quoted",
        "''=twice quoted", "'plain quote", "plain", "a=b", "-", "'", "''",
    ]

    @Test("CSV cells a spreadsheet would run as formulas start with a quote; NDJSON keeps them raw; the file re-verifies")
    func formulaCellsNeutralised() async throws {
        try await AuditLogFile.with(Self.formulaNames.count, names: { Self.formulaNames[$0 - 1] }) { log in
            // act
            let csv = try await export(log.store, .csv)
            let ndjson = try await export(log.store, .ndjson)

            // check: the raw cells as a spreadsheet sees them
            let cells = try AuditCSV.records(in: csv).dropFirst().map { $0[8] }
            let neutralised = [true, true, true, true, true, true, true, true, false, false, false, true, false, false]
            for (index, name) in Self.formulaNames.enumerated() {
                #expect(cells[index] == (neutralised[index] ? "'" + name : name), "cell \(index + 1)")
            }
            #expect(!cells.contains { $0.first.map { "=+-@\t\r".contains($0) } ?? false }, "no cell starts with a formula character")

            // check: reading the file back undoes it, so the hashes re-verify
            let entries = try AuditCSV.entries(in: csv)
            #expect(entries.map(\.targetName) == Self.formulaNames)
            #expect(entries.allSatisfy { $0.computedHash() == $0.hash })

            // check: NDJSON is data, not a spreadsheet: the values as recorded
            let objects = try ndjson.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            }
            #expect(objects.compactMap { $0["targetName"] as? String } == Self.formulaNames)
        }
    }

    @Test("an export file verifies on its own: every hash, the links where ids follow each other, and gaps counted rather than hidden")
    func exportFileVerification() async throws {
        try await AuditLogFile.with(9) { (log: AuditLogFile) throws in
            // setup: a full export, a filtered one (every other entry), and a full one missing entry 5
            let full = try await export(log.store, .ndjson)
            let filtered = try await export(log.store, .csv, filter: AuditFilter(actorUsername: "staff"))
            let lines = full.split(separator: "\n")
            let missing = (lines[..<4] + lines[5...]).joined(separator: "\n") + "\n"
            let previous = try #require(await log.store.auditEntry(id: 4)?.hash)
            let relinked = full.replacingOccurrences(of: "\"previousHash\":\"\(previous)\"", with: "\"previousHash\":\"\(String(repeating: "0", count: 64))\"")

            // act
            let fullVerdict = AuditExportFile.verify(try AuditExportFile.entries(in: full))
            let filteredVerdict = AuditExportFile.verify(try AuditExportFile.entries(in: filtered))
            let missingVerdict = AuditExportFile.verify(try AuditExportFile.entries(in: missing))
            let relinkedVerdict = AuditExportFile.verify(try AuditExportFile.entries(in: relinked))

            // check
            guard case .intact(entries: 9, let head, gaps: 0) = fullVerdict else {
                Issue.record("full export: \(fullVerdict)")
                return
            }
            #expect(try await log.verdict() == .intact(entries: 9, head: head), "the same head as the database's")
            #expect(await filteredVerdict == .intact(entries: 4, head: try #require(log.store.auditEntry(id: 8)?.hash), gaps: 3))
            #expect(missingVerdict == .intact(entries: 8, head: head, gaps: 1), "a gap alone cannot tell a filter from a removal, so it is counted")
            #expect(relinkedVerdict == .broken(entryID: 5, reason: "its previous hash does not match the entry before it (an entry was removed or moved)"))
        }
    }

    @Test("summary and chart CSV cells are neutralised the same way")
    func fieldNeutralised() {
        #expect(AuditCSV.field("=1+2") == "'=1+2")
        #expect(AuditCSV.field("@x,y") == "\"'@x,y\"")
        #expect(AuditCSV.field("'-1") == "''-1")
        #expect(AuditCSV.field("Zoë") == "Zoë")
        #expect(AuditCSV.field("12") == "12")
    }

    @Test("a broken CSV file is refused with a reason")
    func malformedCSV() throws {
        #expect(throws: AuditCSVError.unterminatedQuote) { try AuditCSV.records(in: "a,\"b\r\n") }
        #expect(throws: AuditCSVError.unexpectedHeader) { try AuditCSV.entries(in: "a,b\r\n1,2\r\n") }
        #expect(try AuditCSV.records(in: "a,\"b,\"\"c\"\"\"\r\n,\r\n") == [["a", "b,\"c\""], ["", ""]])
    }

    @Test("ISO times keep milliseconds and survive a round trip, before and after 1970")
    func isoTimes() throws {
        for seconds in [0.0, 1_795_000_000.457, -86_400.5, 951_782_400.999, 4_102_444_800] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = ISOTime.string(date)
            let parsed = try #require(ISOTime.parse(text), "\(text)")
            #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.0005, "\(text)")
        }
        #expect(ISOTime.string(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(ISOTime.parseDay("2026-11-22") == Date(timeIntervalSince1970: 1_795_305_600))
        #expect(ISOTime.parse("2026-13-01T00:00:00Z") == nil)
        #expect(ISOTime.parseDay("yesterday") == nil)
    }
}

@Suite("Audit summary")
struct AuditSummaryTests {
    @Test("decisions are counted by staff, action and outcome; waits give median and 90th percentile per queue")
    func summary() throws {
        let base = Date(timeIntervalSince1970: 1_795_000_000)
        let records = (1...10).map { (index: Int) -> DecisionRecord in
            let actor = index <= 7 ? "staff" : "Zoë"
            let action = index % 2 == 0 ? "library.approve" : "library.reject"
            let queue = index <= 8 ? "library" : "report"
            let outcome: AuditOutcome = index == 10 ? .conflict : .applied
            return DecisionRecord(
                recordedAt: base, actorUsername: actor, action: action, queue: queue, outcome: outcome, secondsWaited: Double(index) * 3600)
        }
        let summary = AuditSummary(records)
        #expect(summary.total == 10)
        let staff: [AuditSummary.Count] = [.init(key: "staff", decisions: 7), .init(key: "Zoë", decisions: 3)]
        #expect(summary.byStaff == staff)
        #expect(summary.byOutcome.first == AuditSummary.Count(key: "applied", decisions: 9))
        let queues: [AuditSummary.QueueTiming] = [
            .init(queue: "library", decisions: 8, medianSeconds: 4 * 3600, p90Seconds: 8 * 3600),
            .init(queue: "report", decisions: 1, medianSeconds: 9 * 3600, p90Seconds: 9 * 3600),
        ]
        #expect(summary.queues == queues)
        let csv = summary.csv()
        #expect(csv.hasPrefix("group,key,decisions,median_hours,p90_hours\r\n"))
        #expect(csv.contains("queue,library,8,4.0,8.0\r\n"))
        #expect(AuditSummary([]).csv() == "group,key,decisions,median_hours,p90_hours\r\n")
    }

    @Test("the store's decision records leave out sign-ins and compute waits from the stored times")
    func records() async throws {
        try await AuditLogFile.with(3) { (log: AuditLogFile) throws in
            var signIn = AuditLogFile.entry(4, name: "")
            signIn.targetKind = "session"
            signIn.actionId = nil
            try await log.store.appendAudit(signIn)
            let records = try await log.store.decisionRecords(AuditFilter())
            #expect(records.count == 3)
            let waited = try #require(records.first?.secondsWaited)
            #expect(abs(waited - (86_400 + 60 + 0.4567 - 0.1239)) < 0.01)
        }
    }
}

@Suite("Audit filter choices")
struct AuditFilterChoiceTests {
    private static func signIn(_ username: String, actorId: Int?, outcome: AuditOutcome, detail: String = "") -> AuditEntry {
        AuditEntry(
            recordedAt: AuditLogFile.start, actorId: actorId, actorUsername: username, action: "session.signIn", targetKind: "session",
            targetId: "", targetSlug: "", targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: outcome,
            outcomeDetail: detail, backendStatus: nil, requestId: "r", clientAddress: "192.0.2.9", userAgent: "=HYPERLINK(\"x\")", itemCreatedAt: nil,
            actionId: nil)
    }

    @Test("the staff filter lists who signed in or acted, never names typed into a failed or refused sign-in")
    func staffChoices() async throws {
        try await AuditLogFile.with(2) { (log: AuditLogFile) throws in
            // setup: entries 1 and 2 are decisions by "moderator" and "staff"; then 250 guesses and a refused non-staff user
            for index in 1...250 {
                try await log.store.appendAudit(Self.signIn("guess-\(index)", actorId: nil, outcome: .failed, detail: "wrong credentials"))
            }
            try await log.store.appendAudit(Self.signIn("alice", actorId: 5, outcome: .refused, detail: "not staff"))
            try await log.store.appendAudit(Self.signIn("Zoë", actorId: 9, outcome: .succeeded))
            var export = Self.signIn("cli:root", actorId: nil, outcome: .succeeded)
            export.action = AuditEntry.exportAction
            try await log.store.appendAudit(export)

            // act
            let choices = try await log.store.auditFilterChoices()

            // check
            #expect(choices.actors == ["Zoë", "cli:root", "moderator", "staff"])
            #expect(try await log.store.auditEntryCount(AuditFilter(outcome: .failed)) == 250, "failed sign-ins can still be found by outcome")
        }
    }
}

@Suite("Audit export regressions found by the property checks")
struct AuditExportRegressionTests {
    @Test("a summary or chart cell with a CRLF, or a comma or quote joined to the scalar before it, is quoted")
    func fieldQuotedByBytes() throws {
        // CRLF is one Character; U+0600 joins the "," or "\"" after it into one Character.
        #expect(AuditCSV.field("a\r\nb") == "\"a\r\nb\"")
        #expect(AuditCSV.field("\r\n") == "\"'\r\n\"")
        #expect(AuditCSV.field("\u{600},x") == "\"\u{600},x\"")
        #expect(AuditCSV.field("\u{600}\"x") == "\"\u{600}\"\"x\"")
        #expect(try AuditCSV.records(in: AuditCSV.field("a\r\nb") + ",c\r\n") == [["a\r\nb", "c"]])
    }

    @Test("an NDJSON export of a value that starts with a byte-order mark re-verifies")
    func ndjsonByteOrderMark() async throws {
        try await AuditLogFile.with(2, names: { "\u{FEFF}Corner \($0)" }) { log in
            // act
            let entries = try await AuditExportFile.entries(in: try log.store.exportedText(.ndjson))

            // check
            #expect(entries.map(\.targetName) == ["\u{FEFF}Corner 1", "\u{FEFF}Corner 2"])
            #expect(await AuditExportFile.verify(entries) == .intact(entries: 2, head: try #require(log.store.auditEntry(id: 2)?.hash), gaps: 0))
        }
    }
}
