import Foundation
import PropertyBased
import PropertySupport
import Testing

@testable import ModerationStore

/// Property checks of the canonical JSON the audit hashes cover: any text is written as
/// Foundation writes it and parses back to itself, and an entry read back from a file
/// whose keys come in any order encodes, and so hashes, exactly as the one recorded.
@Suite("Canonical JSON (property checks)")
struct CanonicalJSONPropertyTests {
    @Test("any string is written byte for byte as JSONEncoder writes it, and JSONDecoder reads it back equal")
    func stringRoundTrips() async throws {
        await propertyCheck(count: 500, input: HostileText.text(pieces: 0...20)) { text in
            // act
            let written = CanonicalJSON.string(text)
            let foundation = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
            let readBack = try JSONDecoder().decode(String.self, from: Data(written.utf8))

            // check
            #expect(written == foundation, "\(text.unicodeScalars.map(\.value))")
            #expect(readBack == text)
            #expect(!written.unicodeScalars.contains { $0.value < 0x20 }, "no raw control character in the encoding")
        }
    }

    @Test("an entry's canonical encoding is one JSON object, keys in the fixed order, values equal to the entry's")
    func entryEncodingParsesBack() async throws {
        await propertyCheck(count: 200, input: AuditExportPropertyTests.values) { texts in
            // setup
            var entry = AuditExportPropertyTests.entry(texts, index: 7)
            entry.id = 7
            entry.previousHash = texts[0]

            // act
            let encoding = entry.canonicalEncoding()
            let object = try JSONFields.object(encoding)

            // check: values
            for (column, value) in zip(AuditExportPropertyTests.textColumns, texts) {
                let name = AuditExporter.columns[column]
                // The explanation is hashed only when there is one (entries before it had none).
                if name == "outcomeDetail", value.isEmpty { #expect(object[name] == nil); continue }
                #expect(object[name] == .text(value), "\(name) of \(value.debugDescription)")
            }
            #expect(object["previousHash"] == .text(texts[0]))
            #expect(object["id"] == .integer(7))
            #expect(object["recordedAt"] == .integer(Int64((entry.recordedAt.timeIntervalSince1970 * 1000).rounded())))
            #expect(object["hash"] == nil, "the hash does not cover itself")

            // check: the fixed order, whatever the values (found by where each key's quoted name starts)
            let text = String(decoding: encoding, as: UTF8.self)
            let keys = AuditExporter.columns.filter { $0 != "hash" && ($0 != "outcomeDetail" || !entry.outcomeDetail.isEmpty) }
            let expectedOrder = [
                "id", "recordedAt", "actorId", "actorUsername", "action", "targetKind", "targetId", "targetSlug",
                "targetName", "statusBefore", "statusAfter", "reason", "outcome", "outcomeDetail", "backendStatus", "requestId",
                "clientAddress", "userAgent", "itemCreatedAt", "actionId", "previousHash",
            ].filter(keys.contains)
            #expect(Set(object.keys) == Set(expectedOrder))
            #expect(Self.topLevelKeys(text) == expectedOrder)
        }
    }

    @Test("an NDJSON export whose keys are shuffled reads back into entries with the same canonical bytes, and re-verifies")
    func stableUnderKeyOrder() async throws {
        await propertyCheck(count: 40, input: AuditExportPropertyTests.values.array(of: 1...3), Gen<UInt64>.value(in: 0...UInt64.max)) { rows, seed in
            // setup: the export as written, then each line's keys in a random order
            let (ndjson, stored) = try await AuditExportPropertyTests.exported(rows, .ndjson)
            var generator = SeededGenerator(seed: seed)
            let shuffled = try ndjson.split(separator: "\n").map { line in
                let object = try JSONFields.object(Data(line.utf8))
                let members = object.keys.shuffled(using: &generator).map { key in
                    CanonicalJSON.string(key) + ":" + (object[key]?.json ?? "null")
                }
                return "{" + members.joined(separator: ",") + "}\n"
            }.joined()

            // act
            let entries = try AuditExportFile.entries(in: shuffled)

            // check
            #expect(entries.map { $0.canonicalEncoding() } == stored.map { $0.canonicalEncoding() })
            #expect(entries.map { $0.computedHash() } == stored.map(\.hash))
            #expect(AuditExportFile.verify(entries) == .intact(entries: rows.count, head: stored.last?.hash ?? "", gaps: 0))
        }
    }

    /// The keys of a JSON object's top level, in the order written.
    static func topLevelKeys(_ json: String) -> [String] {
        var keys: [String] = []
        var depth = 0
        var inString = false
        var escaped = false
        var current = ""
        var expectingKey = false
        for scalar in json.unicodeScalars {
            if inString {
                if escaped { escaped = false; if expectingKey { current.unicodeScalars.append(scalar) }; continue }
                if scalar == "\\" { escaped = true; if expectingKey { current.unicodeScalars.append(scalar) }; continue }
                if scalar == "\"" {
                    inString = false
                    if expectingKey { keys.append(current); expectingKey = false }
                    continue
                }
                if expectingKey { current.unicodeScalars.append(scalar) }
                continue
            }
            switch scalar {
            case "{", "[": depth += 1; if depth == 1 { expectingKey = true }
            case "}", "]": depth -= 1
            case ",": if depth == 1 { expectingKey = true }
            case "\"":
                inString = true
                current = ""
            default: break
            }
        }
        return keys
    }
}

/// A JSON object's members, read as the NDJSON reader reads a line (`JSONDecoder`: Foundation's
/// `JSONSerialization` drops a byte-order mark that starts a string, so it cannot judge these values).
enum JSONFields {
    static func object(_ data: Data) throws -> [String: AuditNDJSON.LineValue] {
        try JSONDecoder().decode([String: AuditNDJSON.LineValue].self, from: data)
    }
}

extension AuditNDJSON.LineValue {
    /// The value written back as JSON (`other` never comes from an entry's encoding).
    var json: String {
        switch self {
        case .text(let text): CanonicalJSON.string(text)
        case .integer(let number): String(number)
        case .null, .other: "null"
        }
    }
}
