import Foundation
import GRDB
import ModerationStore

// The audit log's benchmarks (see docs/benchmarks.md and scripts/benchmark-audit.sh):
//   audit-benchmark append COUNT DATABASE   appends COUNT entries, one transaction each, and prints the rate
//   audit-benchmark fill COUNT DATABASE     fills a log with COUNT realistic, correctly chained entries

/// A decision as the console records it, with values of realistic length.
func entry(_ index: Int, at date: Date) -> AuditEntry {
    AuditEntry(
        recordedAt: date, actorId: 2 + index % 3, actorUsername: ["staff", "zoë", "amir"][index % 3],
        action: index % 4 == 3 ? "library.reject" : "library.approve", targetKind: "library", targetId: String(1000 + index),
        targetSlug: "berlin-kastanienallee-\(index)-little-free-library", targetName: "Little Free Library, Kastanienallee \(index)",
        statusBefore: "pending", statusAfter: index % 4 == 3 ? "rejected" : "approved",
        reason: index % 4 == 3 ? "The photo does not show a book-sharing box; please send one of the box itself." : "",
        outcome: .applied, backendStatus: 200, requestId: UUID().uuidString.lowercased(), clientAddress: "203.0.113.7",
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
        itemCreatedAt: date.addingTimeInterval(-86_400 * Double(1 + index % 20)), actionId: nil)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[2]), count > 0 else {
    FileHandle.standardError.write(Data("usage: audit-benchmark append|fill COUNT DATABASE\n".utf8))
    exit(2)
}
let path = arguments[3]
let store = try ModerationStore(path: path)
switch arguments[1] {
case "append":
    let start = Date()
    for index in 0..<count {
        try await store.appendAudit(entry(index, at: Date()))
    }
    let seconds = Date().timeIntervalSince(start)
    print("appended \(count) entries in \(String(format: "%.2f", seconds)) s: \(Int(Double(count) / seconds)) per second")
case "fill":
    let queue = try DatabaseQueue(path: path)
    let base = Date().addingTimeInterval(-Double(count) * 30)
    var previous = try queue.read { try String.fetchOne($0, sql: "SELECT hash FROM auditEntry ORDER BY id DESC LIMIT 1") } ?? AuditEntry.genesisHash
    var next = try queue.read { try Int64.fetchOne($0, sql: "SELECT MAX(id) FROM auditEntry") ?? 0 } + 1
    var written = 0
    while written < count {
        try queue.inTransaction { db in
            for _ in 0..<min(10_000, count - written) {
                var record = entry(written, at: base.addingTimeInterval(Double(written) * 30))
                // Times as the column keeps them (milliseconds), so the chain verifies.
                record.recordedAt = Date.fromDatabaseValue(record.recordedAt.databaseValue) ?? record.recordedAt
                record.itemCreatedAt = record.itemCreatedAt.flatMap { Date.fromDatabaseValue($0.databaseValue) }
                record.id = next
                record.previousHash = previous
                record.hash = record.computedHash()
                try record.insert(db)
                previous = record.hash
                next += 1
                written += 1
            }
            return .commit
        }
    }
    print("filled \(count) entries")
default:
    FileHandle.standardError.write(Data("unknown benchmark \(arguments[1])\n".utf8))
    exit(2)
}
