import CSV
import Foundation
import ModerationVocabulary
import PropertyBased
import PropertySupport
import Testing

@testable import ModerationStore

/// Property checks of the audit export: whatever text staff, the public or a backend put
/// into an entry comes back out of the file, read by a CSV parser that is not ours.
///
/// What round-trips, precisely: every CSV cell an RFC 4180 parser reads is the recorded
/// value, with one `'` put in front when the value would start a spreadsheet formula
/// (`AuditCSV.neutralised`); `AuditCSV.restored` takes that `'` off, so the cell restored is
/// the value exactly. An empty text and a missing value are both an empty cell. NDJSON
/// keeps every value as recorded.
@Suite("Audit export: hostile values round-trip (property checks)")
struct AuditExportPropertyTests {
    /// The text columns of an entry, by their position in `AuditExporter.columns`.
    static let textColumns = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 16, 17]

    /// One entry's worth of hostile texts, one per text column.
    static let values = HostileText.text().array(of: textColumns.count).eraseToAny()

    /// An entry carrying `texts` in its text columns, in `textColumns` order.
    static func entry(_ texts: [String], index: Int) -> AuditEntry {
        AuditEntry(
            recordedAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(index) * 60.25), actorId: index, actorUsername: texts[0],
            action: texts[1], targetKind: texts[2], targetId: texts[3], targetSlug: texts[4], targetName: texts[5],
            statusBefore: texts[6], statusAfter: texts[7], reason: texts[8], outcome: .applied, outcomeDetail: texts[9],
            backendStatus: index % 2 == 0 ? 200 : nil, requestId: texts[10], clientAddress: texts[11], userAgent: texts[12],
            itemCreatedAt: index % 3 == 0 ? nil : Date(timeIntervalSince1970: 1_700_000_000.5), actionId: nil)
    }

    /// A fresh store holding one entry per element of `rows`, and its export in `format`.
    static func exported(_ rows: [[String]], _ format: AuditExportFormat) async throws -> (text: String, stored: [AuditEntry]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("audit-property-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path)
        var stored: [AuditEntry] = []
        for (index, texts) in rows.enumerated() {
            await stored.append(try store.appendAudit(entry(texts, index: index + 1)))
        }
        // Small batches, so records also cross the exporter's chunk boundaries.
        var exporter = AuditExporter(store: store, filter: AuditFilter(), format: format, batchSize: 2)
        var bytes: [UInt8] = []
        var chunk: [UInt8] = []
        while try await exporter.nextChunk(into: &chunk) { bytes += chunk }
        return (String(decoding: bytes, as: UTF8.self), stored)
    }

    /// Every record of `text`, read by CSV.swift (yaslab), header included.
    static func parsed(_ text: String) throws -> [[String]] {
        let reader = try CSVReader(string: text, hasHeaderRow: false)
        var records: [[String]] = []
        while let record = reader.next() { records.append(record) }
        return records
    }

    @Test("every text value comes back from an independent CSV parser as recorded, neutralised only against formulas")
    func csvCellsRoundTrip() async throws {
        await propertyCheck(count: 60, input: Self.values.array(of: 1...4)) { rows in
            // act
            let (csv, stored) = try await Self.exported(rows, .csv)
            let records = try Self.parsed(csv)

            // check: the header, one record per entry, every record whole
            try #require(records.count == rows.count + 1, "\(records.count) records for \(rows.count) entries in \(csv.debugDescription)")
            #expect(records[0] == AuditExporter.columns)
            for (record, (texts, entry)) in zip(records.dropFirst(), zip(rows, stored)) {
                try #require(record.count == AuditExporter.columns.count, "\(record)")
                for (column, typed) in zip(Self.textColumns, texts) {
                    // As recorded: control characters (but tab, LF, CR) made visible before hashing and storing.
                    let value = ControlCharacters.escaped(typed)
                    #expect(record[column] == AuditCSV.neutralised(value), "column \(AuditExporter.columns[column]) of \(value.debugDescription)")
                    #expect(AuditCSV.restored(record[column]) == value, "column \(AuditExporter.columns[column]) of \(value.debugDescription)")
                    // A spreadsheet sees no formula: nothing starts with = + - @ tab or CR once neutralised.
                    #expect(!(record[column].unicodeScalars.first.map { "=+-@\t\r".unicodeScalars.contains($0) } ?? false))
                }
                #expect(record[0] == entry.id.map(String.init) && record[21] == entry.hash)
            }
        }
    }

    @Test("a CSV or NDJSON export of hostile values reads back into the same entries and re-verifies from the file alone")
    func exportsReVerify() async throws {
        await propertyCheck(count: 40, input: Self.values.array(of: 1...4), Gen<AuditExportFormat>.case) { rows, format in
            // act
            let (text, stored) = try await Self.exported(rows, format)
            let entries = try AuditExportFile.entries(in: text)

            // check
            #expect(entries.map { $0.canonicalEncoding() } == stored.map { $0.canonicalEncoding() }, "\(format)")
            #expect(AuditExportFile.verify(entries) == .intact(entries: rows.count, head: stored.last?.hash ?? "", gaps: 0), "\(format)")
        }
    }

    @Test("every NDJSON line is one JSON object holding the values exactly as recorded")
    func ndjsonValues() async throws {
        await propertyCheck(count: 40, input: Self.values.array(of: 1...3)) { rows in
            // act
            let (ndjson, _) = try await Self.exported(rows, .ndjson)
            let lines = ndjson.split(separator: "\n", omittingEmptySubsequences: false)

            // check
            try #require(lines.count == rows.count + 1 && lines.last == "", "one line per entry, each ended: \(ndjson.debugDescription)")
            for (line, texts) in zip(lines, rows) {
                let object = try JSONFields.object(Data(line.utf8))
                for (column, typed) in zip(Self.textColumns, texts) {
                    let value = ControlCharacters.escaped(typed)
                    #expect(object[AuditExporter.columns[column]] == .text(value), "\(AuditExporter.columns[column]) of \(value.debugDescription)")
                }
            }
        }
    }

    @Test("summary and chart cells (AuditCSV.field) parse back as the neutralised value, one record per row")
    func fieldRoundTrips() async throws {
        await propertyCheck(count: 200, input: HostileText.text().array(of: 1...6).array(of: 1...4)) { rows in
            // act
            let text = rows.map { $0.map(AuditCSV.field).joined(separator: ",") + "\r\n" }.joined()
            let records = try Self.parsed(text)

            // check
            #expect(records == rows.map { $0.map(AuditCSV.neutralised) }, "\(text.debugDescription)")
            #expect(records.map { $0.map(AuditCSV.restored) } == rows)
        }
    }
}
