import Foundation
import GRDB

extension ModerationStore {
    /// Writes the matching entries after `afterID`, in chain order, as CSV records or
    /// NDJSON lines straight from SQLite's row buffers into `bytes`: no entry values are
    /// built, which is what lets an export keep up with the disk.
    func exportBatch(
        _ filter: AuditFilter, afterID: Int64, limit: Int, format: AuditExportFormat, into bytes: inout [UInt8]
    ) throws -> (rows: Int, lastID: Int64?) {
        let conditions = filter.sqlConditions()
        let columns = AuditExporter.columns.joined(separator: ", ")
        return try writer.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT \(columns) FROM auditEntry WHERE \(conditions.sql) AND id > ? ORDER BY id LIMIT ?",
                arguments: conditions.arguments + [afterID, limit])
            var count = 0
            var lastID: Int64?
            while let row = try rows.next() {
                switch format {
                case .csv: try AuditRowWriter.csv(row, into: &bytes)
                case .ndjson: try AuditRowWriter.ndjson(row, into: &bytes)
                }
                lastID = row[0]
                count += 1
            }
            return (count, lastID)
        }
    }
}

/// One audit row, in `AuditExporter.columns` order, written as CSV or NDJSON.
enum AuditRowWriter {
    enum Kind { case integer, time, text }

    /// What each column holds, in `AuditExporter.columns` order.
    static let kinds: [Kind] = [
        .integer, .time, .integer, .text, .text, .text, .text, .text, .text, .text, .text, .text, .text, .integer, .text, .text,
        .text, .time, .integer, .text, .text,
    ]
    static let ndjsonKeys: [[UInt8]] = AuditExporter.columns.enumerated().map { index, name in
        Array(((index == 0 ? "{\"" : ",\"") + name + "\":").utf8)
    }

    static func csv(_ row: Row, into bytes: inout [UInt8]) throws {
        for (index, kind) in kinds.enumerated() {
            if index > 0 { bytes.append(44) }
            switch kind {
            case .integer: if let value = row[index] as Int64? { appendInteger(value, to: &bytes) }
            case .time: try appendTime(row, index, quoted: false, to: &bytes)
            case .text:
                try row.withUnsafeData(atIndex: index) { data in
                    guard let data else { return }
                    data.withUnsafeBytes { (field: UnsafeRawBufferPointer) in
                        // RFC 4180 quotes only fields with a comma, a quote or a line break.
                        guard field.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else {
                            bytes.append(contentsOf: field)
                            return
                        }
                        bytes.append(34)
                        for byte in field {
                            if byte == 34 { bytes.append(34) }
                            bytes.append(byte)
                        }
                        bytes.append(34)
                    }
                }
            }
        }
        bytes.append(contentsOf: [13, 10])
    }

    static func ndjson(_ row: Row, into bytes: inout [UInt8]) throws {
        for (index, kind) in kinds.enumerated() {
            bytes.append(contentsOf: ndjsonKeys[index])
            switch kind {
            case .integer:
                if let value = row[index] as Int64? { appendInteger(value, to: &bytes) } else { bytes.append(contentsOf: [110, 117, 108, 108]) }
            case .time:
                if row.hasNull(atIndex: index) { bytes.append(contentsOf: [110, 117, 108, 108]) } else { try appendTime(row, index, quoted: true, to: &bytes) }
            case .text:
                try row.withUnsafeData(atIndex: index) { data in
                    bytes.append(34)
                    data?.withUnsafeBytes { (field: UnsafeRawBufferPointer) in appendJSONEscaped(field, to: &bytes) }
                    bytes.append(34)
                }
            }
        }
        bytes.append(contentsOf: [125, 10])
    }

    static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(45)
            return appendInteger(-value, to: &bytes)
        }
        if value >= 10 { appendInteger(value / 10, to: &bytes) }
        bytes.append(UInt8(48 + value % 10))
    }

    /// GRDB's "yyyy-MM-dd HH:mm:ss.SSS" becomes ISO 8601 "yyyy-MM-ddTHH:mm:ss.SSSZ" by
    /// swapping two bytes; anything else stored there is parsed and written afresh.
    static func appendTime(_ row: Row, _ index: Int, quoted: Bool, to bytes: inout [UInt8]) throws {
        if quoted { bytes.append(34) }
        defer { if quoted { bytes.append(34) } }
        let copied = try row.withUnsafeData(atIndex: index) { data -> Bool in
            guard let data, data.count == 23 else { return false }
            return data.withUnsafeBytes { (text: UnsafeRawBufferPointer) in
                guard text[10] == 32, text[19] == 46 else { return false }
                bytes.append(contentsOf: text[0..<10])
                bytes.append(84)
                bytes.append(contentsOf: text[11..<23])
                bytes.append(90)
                return true
            }
        }
        if !copied, let date = row[index] as Date? { ISOTime.append(date, to: &bytes) }
    }

    static func appendJSONEscaped(_ text: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in text {
            switch byte {
            case 34: bytes += [92, 34]
            case 92: bytes += [92, 92]
            case 10: bytes += [92, 110]
            case 13: bytes += [92, 114]
            case 9: bytes += [92, 116]
            case 0..<32: bytes += [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: bytes.append(byte)
            }
        }
    }
}
