import Foundation

/// The file formats an audit export comes in.
public enum AuditExportFormat: String, CaseIterable, Sendable {
    /// RFC 4180: UTF-8, a header row, CRLF line ends, fields quoted when they need it.
    case csv
    /// The log for people (`AuditSpreadsheet`): when, who, what, which item, reason, result, in
    /// words, with a UTF-8 byte-order mark first: spreadsheet programs that guess an encoding
    /// (Excel) then read UTF-8, so names in Cyrillic, Arabic or CJK arrive intact.
    case spreadsheetCSV = "spreadsheet-csv"
    /// One JSON object per line.
    case ndjson

    public var contentType: String {
        switch self {
        case .csv, .spreadsheetCSV: "text/csv; charset=utf-8; header=present"
        case .ndjson: "application/x-ndjson; charset=utf-8"
        }
    }

    /// The file name's extension.
    public var fileExtension: String {
        switch self {
        case .csv, .spreadsheetCSV: "csv"
        case .ndjson: "ndjson"
        }
    }

    /// Whether `console audit verify --export` can check the file: the spreadsheet CSV keeps only
    /// the columns a person reads, not the fields the hashes cover, so only the other two can.
    public var canBeVerified: Bool { self != .spreadsheetCSV }

    /// Whether the file is CSV (with or without its byte-order mark).
    public var isCSV: Bool { self != .ndjson }

    /// U+FEFF in UTF-8.
    public static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
}

/// Streams matching audit entries in chain order, a batch at a time, so an export of any
/// size holds one batch in memory. Both formats carry `previousHash` and `hash`, and
/// every field the hash covers, so a reader can re-verify the chain.
public struct AuditExporter {
    /// Column names, in the order of the hash's canonical encoding, then the hash.
    public static let columns = [
        "id", "recordedAt", "actorId", "actorUsername", "action", "targetKind", "targetId", "targetSlug", "targetName",
        "statusBefore", "statusAfter", "reason", "outcome", "outcomeDetail", "backendStatus", "requestId", "clientAddress", "userAgent",
        "itemCreatedAt", "actionId", "previousHash", "hash",
    ]

    private let store: ModerationStore
    private let filter: AuditFilter
    private let format: AuditExportFormat
    private let spreadsheet: AuditSpreadsheet?
    private let batchSize: Int
    private var lastID: Int64 = 0
    private var started = false
    private var finished = false
    public private(set) var rowsWritten = 0

    /// `zone` is the team's: the spreadsheet CSV's times for people are on its clock.
    public init(store: ModerationStore, filter: AuditFilter, format: AuditExportFormat, zone: TimeZone = .gmt, batchSize: Int = 2_000) {
        self.store = store
        self.filter = filter
        self.format = format
        self.spreadsheet = format == .spreadsheetCSV ? AuditSpreadsheet(zone: zone) : nil
        self.batchSize = batchSize
    }

    /// Replaces `buffer`'s contents with the next piece of the file; `false` once
    /// everything was handed out. Reusing one buffer keeps the heap from growing with
    /// the row count.
    public mutating func nextChunk(into buffer: inout [UInt8]) async throws -> Bool {
        buffer.removeAll(keepingCapacity: true)
        guard !finished else { return false }
        if !started, format.isCSV {
            if spreadsheet != nil { buffer.append(contentsOf: AuditExportFormat.byteOrderMark) }
            buffer.append(contentsOf: (spreadsheet?.header.map(AuditCSV.field) ?? Self.columns).joined(separator: ",").utf8)
            buffer.append(contentsOf: [13, 10])
        }
        started = true
        let batch = try await store.exportBatch(filter, afterID: lastID, limit: batchSize, format: format, spreadsheet: spreadsheet, into: &buffer)
        if batch.rows < batchSize { finished = true }
        lastID = batch.lastID ?? lastID
        rowsWritten += batch.rows
        return !buffer.isEmpty
    }
}

/// One entry as a CSV record, and back.
public enum AuditCSV {
    /// One RFC 4180 field, neutralised against spreadsheet formulas (`neutralised`), then
    /// quoted (quotes doubled) only when it holds a comma, a quote or a line break.
    /// Looked for by UTF-8 byte, as `AuditRowWriter` does: comparing Characters missed a
    /// CRLF (one Character, neither "\r" nor "\n") and a comma or quote joined to a scalar
    /// before it (U+0600 is a "prepend" scalar), which then split the record.
    public static func field(_ text: String) -> String {
        let text = neutralised(text)
        guard text.utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else { return text }
        var bytes: [UInt8] = [34]
        for byte in text.utf8 {
            if byte == 34 { bytes.append(34) }
            bytes.append(byte)
        }
        bytes.append(34)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a spreadsheet would read a cell starting with this byte as a formula
    /// (OWASP's list: `=`, `+`, `-`, `@`, tab, carriage return).
    static func isFormulaStart(_ byte: UInt8) -> Bool {
        byte == 0x3D || byte == 0x2B || byte == 0x2D || byte == 0x40 || byte == 0x09 || byte == 0x0D
    }

    /// Whether a cell gets a leading `'`: it starts with a formula character, or with one or
    /// more `'` and then one. Quoting those too keeps `restored` unambiguous: a cell of `'`s
    /// and a formula character was always neutralised, so exactly one `'` comes off.
    static func needsNeutralising<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        guard let first = bytes.first(where: { $0 != 0x27 }) else { return false }
        return isFormulaStart(first)
    }

    /// The value as a CSV cell a spreadsheet shows as text rather than runs: `'` in front when
    /// `needsNeutralising`. The audit log and its hashes keep the value as recorded.
    public static func neutralised(_ text: String) -> String {
        needsNeutralising(text.utf8) ? "'" + text : text
    }

    /// Undoes `neutralised`, so an exported file re-verifies against the recorded hashes.
    public static func restored(_ cell: String) -> String {
        guard cell.utf8.first == 0x27, needsNeutralising(cell.utf8) else { return cell }
        return String(decoding: cell.utf8.dropFirst(), as: UTF8.self)
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

    /// Reads the entries of an exported file back, hashes included, so they can be re-verified;
    /// cells neutralised against formulas get their recorded value back.
    public static func entries(in text: String) throws -> [AuditEntry] {
        let records = try records(in: text)
        // Exports made before outcomes had an explanation of their own lack that one column.
        let older = AuditExporter.columns.filter { $0 != "outcomeDetail" }
        guard let header = records.first, header == AuditExporter.columns || header == older else {
            throw AuditSpreadsheet.isHeader(firstCell: records.first?.first) ? AuditCSVError.spreadsheetVariant : AuditCSVError.unexpectedHeader
        }
        let position = Dictionary(uniqueKeysWithValues: header.enumerated().map { ($1, $0) })
        return try records.dropFirst().enumerated().map { offset, cells in
            let restoredCells = cells.map(restored)
            guard restoredCells.count == header.count else { throw AuditCSVError.wrongFieldCount(record: offset + 2) }
            let fields = AuditExporter.columns.map { name in position[name].map { restoredCells[$0] } ?? "" }
            func date(_ text: String) throws -> Date? {
                if text.isEmpty { return nil }
                guard let date = ISOTime.parse(text) else { throw AuditCSVError.badTime(text, record: offset + 2) }
                return date
            }
            var entry = AuditEntry(
                recordedAt: try date(fields[1]) ?? Date(timeIntervalSince1970: 0), actorId: Int(fields[2]), actorUsername: fields[3],
                action: fields[4], targetKind: fields[5], targetId: fields[6], targetSlug: fields[7], targetName: fields[8],
                statusBefore: fields[9], statusAfter: fields[10], reason: fields[11], outcome: .failed,
                backendStatus: Int(fields[14]), requestId: fields[15], clientAddress: fields[16], userAgent: fields[17],
                itemCreatedAt: try date(fields[18]), actionId: Int64(fields[19]))
            entry.restoreOutcome(stored: fields[12], detail: fields[13])
            entry.id = Int64(fields[0])
            entry.previousHash = fields[20]
            entry.hash = fields[21]
            return entry
        }
    }
}

public enum AuditCSVError: Error, Equatable, CustomStringConvertible {
    case unterminatedQuote
    case strayCarriageReturn(record: Int)
    case textAfterQuote(record: Int)
    case unexpectedHeader
    /// The spreadsheet CSV: names and times for people, not the fields the hashes cover.
    case spreadsheetVariant
    case wrongFieldCount(record: Int)
    case badTime(String, record: Int)

    public var description: String {
        switch self {
        case .unterminatedQuote: "A quoted field never ends."
        case .strayCarriageReturn(let record): "Record \(record) has a carriage return without a line feed."
        case .textAfterQuote(let record): "Record \(record) has text after a closing quote."
        case .unexpectedHeader: "The header row is not an audit export's."
        case .spreadsheetVariant:
            "This is the spreadsheet CSV, made for reading: it keeps only the columns a person reads (when, who, what, which item, reason, result), not the fields the hashes cover, so it cannot be checked against the chain. Check the plain CSV or the NDJSON of the same entries instead (the audit page's \"plain CSV\" or \"NDJSON\", or console audit export)."
        case .wrongFieldCount(let record): "Record \(record) does not have \(AuditExporter.columns.count) fields."
        case .badTime(let text, let record): "Record \(record) has a time that is not ISO 8601: \(text)"
        }
    }
}
