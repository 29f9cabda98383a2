import Foundation

/// NDJSON exports read back: one object per line, keys as `AuditExporter.columns`.
public enum AuditNDJSON {
    public static func entries(in text: String) throws -> [AuditEntry] {
        var entries: [AuditEntry] = []
        for (offset, line) in text.split(separator: "\n").enumerated() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw AuditNDJSONError.notAnObject(line: offset + 1)
            }
            entries.append(try entry(object, line: offset + 1))
        }
        return entries
    }

    private static func entry(_ object: [String: Any], line: Int) throws -> AuditEntry {
        func string(_ key: String) throws -> String {
            guard let value = object[key] as? String else { throw AuditNDJSONError.badField(key, line: line) }
            return value
        }
        func integer(_ key: String) throws -> Int64? {
            switch object[key] {
            case nil, is NSNull: return nil
            case let number as Int: return Int64(number)
            case let number as NSNumber: return number.int64Value
            default: throw AuditNDJSONError.badField(key, line: line)
            }
        }
        func date(_ key: String) throws -> Date? {
            switch object[key] {
            case nil, is NSNull: return nil
            case let text as String:
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
