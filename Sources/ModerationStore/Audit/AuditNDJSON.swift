import Foundation

/// NDJSON exports read back: one object per line, keys as `AuditExporter.columns`.
public enum AuditNDJSON {
    public static func entries(in text: String) throws -> [AuditEntry] {
        var entries: [AuditEntry] = []
        for (offset, line) in text.split(separator: "\n").enumerated() {
            guard let object = try? JSONDecoder().decode([String: LineValue].self, from: Data(line.utf8)) else {
                throw AuditNDJSONError.notAnObject(line: offset + 1)
            }
            entries.append(try entry(object, line: offset + 1))
        }
        return entries
    }

    /// One value of a line. Read with `JSONDecoder`: `JSONSerialization` drops a byte-order
    /// mark (U+FEFF) that starts a string, so such a value no longer matched its hash.
    enum LineValue: Decodable, Equatable {
        case text(String)
        case integer(Int64)
        case null
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else if let number = try? container.decode(Int64.self) {
                self = .integer(number)
            } else {
                self = .other
            }
        }
    }

    private static func entry(_ object: [String: LineValue], line: Int) throws -> AuditEntry {
        func string(_ key: String) throws -> String {
            guard case .text(let value) = object[key] else { throw AuditNDJSONError.badField(key, line: line) }
            return value
        }
        func integer(_ key: String) throws -> Int64? {
            switch object[key] {
            case nil, .null: return nil
            case .integer(let number): return number
            default: throw AuditNDJSONError.badField(key, line: line)
            }
        }
        func date(_ key: String) throws -> Date? {
            switch object[key] {
            case nil, .null: return nil
            case .text(let text):
                guard let date = ISOTime.parse(text) else { throw AuditNDJSONError.badField(key, line: line) }
                return date
            default: throw AuditNDJSONError.badField(key, line: line)
            }
        }
        guard let recordedAt = try date("recordedAt") else { throw AuditNDJSONError.badField("recordedAt", line: line) }
        var entry = AuditEntry(
            recordedAt: recordedAt, actorId: try integer("actorId").map(Int.init), actorUsername: try string("actorUsername"),
            action: try string("action"), targetKind: try string("targetKind"), targetId: try string("targetId"),
            targetSlug: try string("targetSlug"), targetName: try string("targetName"), statusBefore: try string("statusBefore"),
            statusAfter: try string("statusAfter"), reason: try string("reason"), outcome: .failed,
            backendStatus: try integer("backendStatus").map(Int.init), requestId: try string("requestId"),
            clientAddress: try string("clientAddress"), userAgent: try string("userAgent"), itemCreatedAt: try date("itemCreatedAt"),
            actionId: try integer("actionId"))
        // Lines exported before outcomes had an explanation of their own have no such key.
        entry.restoreOutcome(stored: try string("outcome"), detail: object["outcomeDetail"] == nil ? "" : try string("outcomeDetail"))
        entry.id = try integer("id")
        entry.previousHash = try string("previousHash")
        entry.hash = try string("hash")
        return entry
    }
}

public enum AuditNDJSONError: Error, Equatable, CustomStringConvertible {
    case notAnObject(line: Int)
    case badField(String, line: Int)

    public var description: String {
        switch self {
        case .notAnObject(let line): "Line \(line) is not a JSON object."
        case .badField(let key, let line): "Line \(line) has no valid \(key)."
        }
    }
}
