import Foundation

/// The file formats an audit export comes in.
public enum AuditExportFormat: String, CaseIterable, Sendable {
    /// RFC 4180: UTF-8, a header row, CRLF line ends, fields quoted when they need it.
    case csv
    /// One JSON object per line.
    case ndjson

    public var contentType: String {
        switch self {
        case .csv: "text/csv; charset=utf-8; header=present"
        case .ndjson: "application/x-ndjson; charset=utf-8"
        }
    }
}

/// Streams matching audit entries in chain order, a batch at a time, so an export of any
/// size holds one batch in memory. Both formats carry `previousHash` and `hash`, and
/// every field the hash covers, so a reader can re-verify the chain.
public struct AuditExporter {
    /// Column names, in the order of the hash's canonical encoding, then the hash.
    public static let columns = [
        "id", "recordedAt", "actorId", "actorUsername", "action", "targetKind", "targetId", "targetSlug", "targetName",
        "statusBefore", "statusAfter", "reason", "outcome", "backendStatus", "requestId", "clientAddress", "userAgent",
        "itemCreatedAt", "actionId", "previousHash", "hash",
    ]

    private let store: ModerationStore
    private let filter: AuditFilter
    private let format: AuditExportFormat
    private let batchSize: Int
    private var lastID: Int64 = 0
    private var started = false
    private var finished = false
    public private(set) var rowsWritten = 0

    public init(store: ModerationStore, filter: AuditFilter, format: AuditExportFormat, batchSize: Int = 2_000) {
        self.store = store
        self.filter = filter
        self.format = format
        self.batchSize = batchSize
    }

    /// The next piece of the file, or `nil` once everything was handed out.
    public mutating func nextChunk() throws -> [UInt8]? {
        guard !finished else { return nil }
        var bytes: [UInt8] = []
        if !started, format == .csv {
            bytes.append(contentsOf: Self.columns.joined(separator: ",").utf8)
            bytes.append(contentsOf: [13, 10])
        }
        started = true
        let entries = try store.auditBatch(filter, afterID: lastID, limit: batchSize)
        if entries.count < batchSize { finished = true }
        bytes.reserveCapacity(bytes.count + entries.count * 400)
        for entry in entries {
            switch format {
            case .csv: AuditCSV.append(entry, to: &bytes)
            case .ndjson: AuditNDJSON.append(entry, to: &bytes)
            }
        }
        lastID = entries.last?.id ?? lastID
        rowsWritten += entries.count
        return bytes.isEmpty ? nil : bytes
    }
}

/// One entry as a CSV record, and back.
public enum AuditCSV {
    static func append(_ entry: AuditEntry, to bytes: inout [UInt8]) {
        func field(_ text: String) {
            let utf8 = text.utf8
            // Quote only when RFC 4180 needs it: a comma, a quote, or a line break.
            guard utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else {
                bytes.append(contentsOf: utf8)
                return
            }
            bytes.append(34)
            for byte in utf8 {
                if byte == 34 { bytes.append(34) }
                bytes.append(byte)
            }
            bytes.append(34)
        }
        func number<N: BinaryInteger>(_ value: N?) { if let value { bytes.append(contentsOf: String(value).utf8) } }
        func comma() { bytes.append(44) }
        number(entry.id); comma()
        ISOTime.append(entry.recordedAt, to: &bytes); comma()
        number(entry.actorId); comma()
        for text in [entry.actorUsername, entry.action, entry.targetKind, entry.targetId, entry.targetSlug, entry.targetName,
                     entry.statusBefore, entry.statusAfter, entry.reason, entry.outcome] {
            field(text); comma()
        }
        number(entry.backendStatus); comma()
        field(entry.requestId); comma()
        field(entry.clientAddress); comma()
        field(entry.userAgent); comma()
        if let created = entry.itemCreatedAt { ISOTime.append(created, to: &bytes) }
        comma()
        number(entry.actionId); comma()
        field(entry.previousHash); comma()
        field(entry.hash)
        bytes.append(contentsOf: [13, 10])
    }

    /// Splits RFC 4180 text into records of fields.
    public static func records(in text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var afterQuote = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar?
        while let scalar = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if scalar == "\"" {
                    let next = iterator.next()
                    if next == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; afterQuote = true; pending = next }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty && !afterQuote: quoted = true
            case ",":
                record.append(field); field = ""; afterQuote = false
            case "\r":
                let next = iterator.next()
                guard next == "\n" else { throw AuditCSVError.strayCarriageReturn(record: records.count + 1) }
                record.append(field); records.append(record); record = []; field = ""; afterQuote = false
            case "\n":
                record.append(field); records.append(record); record = []; field = ""; afterQuote = false
            default:
                guard !afterQuote else { throw AuditCSVError.textAfterQuote(record: records.count + 1) }
                field.unicodeScalars.append(scalar)
            }
        }
        if quoted { throw AuditCSVError.unterminatedQuote }
        if !field.isEmpty || !record.isEmpty || afterQuote { record.append(field); records.append(record) }
        return records
    }

    /// Reads the entries of an exported file back, hashes included, so they can be re-verified.
    public static func entries(in text: String) throws -> [AuditEntry] {
        let records = try records(in: text)
        guard let header = records.first, header == AuditExporter.columns else { throw AuditCSVError.unexpectedHeader }
        return try records.dropFirst().enumerated().map { offset, fields in
            guard fields.count == header.count else { throw AuditCSVError.wrongFieldCount(record: offset + 2) }
            func date(_ text: String) throws -> Date? {
                if text.isEmpty { return nil }
                guard let date = ISOTime.parse(text) else { throw AuditCSVError.badTime(text, record: offset + 2) }
                return date
            }
            var entry = AuditEntry(
                recordedAt: try date(fields[1]) ?? Date(timeIntervalSince1970: 0), actorId: Int(fields[2]), actorUsername: fields[3],
                action: fields[4], targetKind: fields[5], targetId: fields[6], targetSlug: fields[7], targetName: fields[8],
                statusBefore: fields[9], statusAfter: fields[10], reason: fields[11], outcome: fields[12],
                backendStatus: Int(fields[13]), requestId: fields[14], clientAddress: fields[15], userAgent: fields[16],
                itemCreatedAt: try date(fields[17]), actionId: Int64(fields[18]))
            entry.id = Int64(fields[0])
            entry.previousHash = fields[19]
            entry.hash = fields[20]
            return entry
        }
    }
}

public enum AuditCSVError: Error, Equatable, CustomStringConvertible {
    case unterminatedQuote
    case strayCarriageReturn(record: Int)
    case textAfterQuote(record: Int)
    case unexpectedHeader
    case wrongFieldCount(record: Int)
    case badTime(String, record: Int)

    public var description: String {
        switch self {
        case .unterminatedQuote: "A quoted field never ends."
        case .strayCarriageReturn(let record): "Record \(record) has a carriage return without a line feed."
        case .textAfterQuote(let record): "Record \(record) has text after a closing quote."
        case .unexpectedHeader: "The header row is not an audit export's."
        case .wrongFieldCount(let record): "Record \(record) does not have \(AuditExporter.columns.count) fields."
        case .badTime(let text, let record): "Record \(record) has a time that is not ISO 8601: \(text)"
        }
    }
}

/// One entry as a line of NDJSON: the CSV's columns as keys, times as ISO 8601 UTC.
enum AuditNDJSON {
    static func append(_ entry: AuditEntry, to bytes: inout [UInt8]) {
        var first = true
        func key(_ name: String) {
            bytes.append(first ? 123 : 44)
            first = false
            bytes.append(34)
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: [34, 58])
        }
        func string(_ name: String, _ value: String) {
            key(name)
            JSONText.appendString(value, to: &bytes)
        }
        func number<N: BinaryInteger>(_ name: String, _ value: N?) {
            key(name)
            bytes.append(contentsOf: (value.map { String($0) } ?? "null").utf8)
        }
        func time(_ name: String, _ value: Date?) {
            key(name)
            guard let value else { return bytes.append(contentsOf: "null".utf8) }
            bytes.append(34)
            ISOTime.append(value, to: &bytes)
            bytes.append(34)
        }
        number("id", entry.id)
        time("recordedAt", entry.recordedAt)
        number("actorId", entry.actorId)
        string("actorUsername", entry.actorUsername)
        string("action", entry.action)
        string("targetKind", entry.targetKind)
        string("targetId", entry.targetId)
        string("targetSlug", entry.targetSlug)
        string("targetName", entry.targetName)
        string("statusBefore", entry.statusBefore)
        string("statusAfter", entry.statusAfter)
        string("reason", entry.reason)
        string("outcome", entry.outcome)
        number("backendStatus", entry.backendStatus)
        string("requestId", entry.requestId)
        string("clientAddress", entry.clientAddress)
        string("userAgent", entry.userAgent)
        time("itemCreatedAt", entry.itemCreatedAt)
        number("actionId", entry.actionId)
        string("previousHash", entry.previousHash)
        string("hash", entry.hash)
        bytes.append(contentsOf: [125, 10])
    }
}

/// JSON string literals written straight into a byte buffer.
enum JSONText {
    static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(34)
        for byte in value.utf8 {
            switch byte {
            case 34: bytes.append(contentsOf: [92, 34])
            case 92: bytes.append(contentsOf: [92, 92])
            case 10: bytes.append(contentsOf: [92, 110])
            case 13: bytes.append(contentsOf: [92, 114])
            case 9: bytes.append(contentsOf: [92, 116])
            case 0..<32:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(34)
    }
}
