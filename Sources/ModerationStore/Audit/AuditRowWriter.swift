import Foundation
import GRDB
import GRDBSQLite

extension ModerationStore {
    /// Writes the matching entries after `afterID`, in chain order, as CSV records or
    /// NDJSON lines straight from SQLite's row buffers into `bytes`: no values are built
    /// or copied on the way, which is what lets an export keep up with the disk.
    func exportBatch(
        _ filter: AuditFilter, afterID: Int64, limit: Int, format: AuditExportFormat, spreadsheet: AuditSpreadsheet? = nil, into bytes: inout [UInt8]
    ) async throws -> (rows: Int, lastID: Int64?) {
        let conditions = filter.sqlConditions()
        let columns = AuditExporter.columns.joined(separator: ", ")
        let batch: (rows: Int, lastID: Int64?, bytes: [UInt8]) = try await writer.read { db in
            var bytes: [UInt8] = []
            let statement = try db.makeStatement(
                sql: "SELECT \(columns) FROM auditEntry WHERE \(conditions.sql) AND id > ? ORDER BY id LIMIT ?")
            try statement.setArguments(conditions.arguments + [afterID, limit])
            let rows = try Row.fetchCursor(statement)
            let row = AuditRowWriter(statement.sqliteStatement)
            var count = 0
            var lastID: Int64?
            // Each step leaves the statement on the next row; the writer reads it in place.
            while try rows.next() != nil {
                switch format {
                case .csv: row.csv(into: &bytes)
                case .spreadsheetCSV: row.spreadsheet(into: &bytes, spreadsheet ?? AuditSpreadsheet(zone: .gmt))
                case .ndjson: row.ndjson(into: &bytes)
                }
                lastID = sqlite3_column_int64(statement.sqliteStatement, 0)
                count += 1
            }
            return (count, lastID, bytes)
        }
        bytes.append(contentsOf: batch.bytes)
        return (batch.rows, batch.lastID)
    }
}

/// The current row of an export statement, in `AuditExporter.columns` order, written as
/// CSV or NDJSON from the bytes SQLite holds.
struct AuditRowWriter {
    enum Kind { case integer, time, text }

    /// What each column holds, in `AuditExporter.columns` order.
    static let kinds: [Kind] = [
        .integer, .time, .integer, .text, .text, .text, .text, .text, .text, .text, .text, .text, .text, .text, .integer, .text,
        .text, .text, .time, .integer, .text, .text,
    ]
    static let ndjsonKeys: [[UInt8]] = AuditExporter.columns.enumerated().map { index, name in
        Array(((index == 0 ? "{\"" : ",\"") + name + "\":").utf8)
    }
    static let null: [UInt8] = Array("null".utf8)
    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    let statement: SQLiteStatement

    init(_ statement: SQLiteStatement) {
        self.statement = statement
    }

    private func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    private func text(_ column: Int32) -> UnsafeRawBufferPointer {
        // sqlite3_column_text first, then sqlite3_column_bytes, as SQLite asks.
        guard let start = sqlite3_column_text(statement, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// One CSV record.
    func csv(into bytes: inout [UInt8]) {
        for (index, kind) in Self.kinds.enumerated() {
            let column = Int32(index)
            if index > 0 { bytes.append(44) }
            guard !isNull(column) else { continue }
            switch kind {
            case .integer: Self.appendInteger(sqlite3_column_int64(statement, column), to: &bytes)
            case .time: appendTime(column, to: &bytes)
            case .text:
                let field = text(column)
                // Text the public chose (a typed login, a User-Agent, a library name) must not
                // run as a formula in a spreadsheet; `AuditCSV.restored` takes the `'` off again.
                let neutralise = AuditCSV.needsNeutralising(field)
                // RFC 4180 quotes only fields with a comma, a quote or a line break.
                guard field.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else {
                    if neutralise { bytes.append(39) }
                    bytes.append(contentsOf: field)
                    continue
                }
                bytes.append(34)
                if neutralise { bytes.append(39) }
                for byte in field {
                    if byte == 34 { bytes.append(34) }
                    bytes.append(byte)
                }
                bytes.append(34)
            }
        }
        bytes.append(13)
        bytes.append(10)
    }

    /// One row of the spreadsheet CSV: a few columns in words, so built as text rather than
    /// copied byte for byte (the plain CSV is the fast one).
    func spreadsheet(into bytes: inout [UInt8], _ spreadsheet: AuditSpreadsheet) {
        func string(_ name: String) -> String {
            guard let index = Self.columnIndex[name] else { return "" }
            return isNull(Int32(index)) ? "" : String(decoding: text(Int32(index)), as: UTF8.self)
        }
        let recordedAt = Self.columnIndex["recordedAt"].flatMap { Date.fromDatabaseValue(DatabaseValue(sqliteStatement: statement, index: Int32($0))) }
        let row = spreadsheet.row(
            recordedAt: recordedAt, actor: string("actorUsername"), action: string("action"), targetName: string("targetName"),
            targetSlug: string("targetSlug"), targetId: string("targetId"), reason: string("reason"), storedOutcome: string("outcome"),
            outcomeDetail: string("outcomeDetail"))
        bytes.append(contentsOf: row.utf8)
    }

    static let columnIndex = Dictionary(uniqueKeysWithValues: AuditExporter.columns.enumerated().map { ($1, $0) })

    func ndjson(into bytes: inout [UInt8]) {
        for (index, kind) in Self.kinds.enumerated() {
            let column = Int32(index)
            bytes.append(contentsOf: Self.ndjsonKeys[index])
            guard !isNull(column) else {
                bytes.append(contentsOf: Self.null)
                continue
            }
            switch kind {
            case .integer: Self.appendInteger(sqlite3_column_int64(statement, column), to: &bytes)
            case .time:
                bytes.append(34)
                appendTime(column, to: &bytes)
                bytes.append(34)
            case .text:
                bytes.append(34)
                Self.appendJSONEscaped(text(column), to: &bytes)
                bytes.append(34)
            }
        }
        bytes.append(125)
        bytes.append(10)
    }

    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(45) }
        var magnitude = value.magnitude
        var digits:
            (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for position in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[position]) }
        }
    }

    /// GRDB's "yyyy-MM-dd HH:mm:ss.SSS" becomes ISO 8601 "yyyy-MM-ddTHH:mm:ss.SSSZ" by
    /// swapping two bytes; anything else stored there is parsed and written afresh.
    private func appendTime(_ column: Int32, to bytes: inout [UInt8]) {
        let stored = text(column)
        if stored.count == 23, stored[10] == 32, stored[19] == 46 {
            bytes.append(contentsOf: stored[0..<10])
            bytes.append(84)
            bytes.append(contentsOf: stored[11..<23])
            bytes.append(90)
        } else if let date = Date.fromDatabaseValue(DatabaseValue(sqliteStatement: statement, index: column)) {
            ISOTime.append(date, to: &bytes)
        }
    }

    static func appendJSONEscaped(_ text: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        for byte in text {
            switch byte {
            case 34: bytes.append(92); bytes.append(34)
            case 92: bytes.append(92); bytes.append(92)
            case 10: bytes.append(92); bytes.append(110)
            case 13: bytes.append(92); bytes.append(114)
            case 9: bytes.append(92); bytes.append(116)
            case 0..<32: bytes.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
    }
}
