import ConsoleServer
import Foundation
import GRDB
import Logging
import ModerationStore

// The outbox's delivery benchmark (see docs/benchmarks.md and scripts/benchmark-outbox.sh):
//   outbox-benchmark COUNT DATABASE STAND-IN-URL CA-FILE KEY-FILE KEY-ID TEAM-ID
// queues COUNT messages (one recipient each, one device each) in a fresh DATABASE, then lets
// one dispatcher deliver them all over one HTTP/2 connection to the APNs stand-in, and prints
// messages per second and this process's peak resident memory.

let arguments = CommandLine.arguments
guard arguments.count == 8, let count = Int(arguments[1]), count > 0, let standIn = URL(string: arguments[3]) else {
    FileHandle.standardError.write(Data("usage: outbox-benchmark COUNT DATABASE STAND-IN-URL CA-FILE KEY-FILE KEY-ID TEAM-ID\n".utf8))
    exit(2)
}
let path = arguments[2]
let store = try ModerationStore(path: path)

/// Queues `count` messages as decisions would, in one transaction per 5 000.
func queue(_ count: Int) async throws {
    let pool = try DatabasePool(path: path)
    let action = try await store.record(
        ModerationAction(
            idempotencyKey: UUID().uuidString, actorId: 3, actorUsername: "staff", targetKind: .photo, targetKey: "1", statusSeen: .pending,
            statusWanted: .approved, reason: "", requestId: "benchmark", clientAddress: "127.0.0.1", userAgent: "benchmark", now: Date())
    ).action
    let start = Date()
    var written = 0
    while written < count {
        let batchStart = written
        written = try await pool.write { db in
            var written = batchStart
            for _ in 0..<min(5_000, count - batchStart) {
                let id = UUID().uuidString
                let user = 100_000 + written
                let payload =
                    #"{"aps":{"alert":{"title":"Your photo is live","body":"Your photo of Little Free Library, Kastanienallee \#(written) in Berlin is now the library's photo."},"sound":"default"},"data":{"library_id":\#(written),"photo_id":\#(written),"type":"photo.approved"}}"#
                let headers =
                    #"{"apns-collapse-id":"photo-\#(written)","apns-expiration":"\#(Int(Date().timeIntervalSince1970) + 604_800)","apns-id":"\#(id)","apns-priority":"10","apns-push-type":"alert","apns-topic":"org.bookcorners.app"}"#
                try OutboxMessage(
                    id: id, actionId: action.id ?? 0, recipientUserId: user, eventType: .photoApproved, payload: payload, headers: headers,
                    createdAt: start.addingTimeInterval(Double(written) / 1_000_000)
                ).insert(db)
                var device = Device(userId: user, token: String(format: "%064x", user), environment: .sandbox, source: "import", createdAt: start)
                try device.insert(db)
                written += 1
            }
            return written
        }
    }
}

/// This process's peak resident memory, in MB (Linux's VmHWM).
func peakMemoryMB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

try await queue(count)
let memoryBefore = peakMemoryMB()
var logger = Logger(label: "outbox-benchmark")
logger.logLevel = .warning
let apns = APNsConfiguration(
    keyPath: arguments[5], keyID: arguments[6], teamID: arguments[7], topic: "org.bookcorners.app", productionURL: standIn, sandboxURL: standIn,
    caFilePath: arguments[4])
let transport = try APNsTransport(
    configuration: apns, providerToken: APNsProviderToken(key: try apns.loadSigningKey(), keyID: apns.keyID, teamID: apns.teamID))
// OUTBOX_BATCH tries another batch size (the console's is the default, 100).
var pacing = OutboxDispatcher.Configuration()
if let batch = ProcessInfo.processInfo.environment["OUTBOX_BATCH"].flatMap(Int.init) { pacing.batchSize = batch }
let dispatcher = OutboxDispatcher(store: store, transport: transport, policy: .standard, configuration: pacing, logger: logger)
let start = Date()
while try await dispatcher.deliverDueBatch() > 0 {}
let seconds = Date().timeIntervalSince(start)
await transport.shutdown()
let delivered = try await store.outboxHealth(since: start).count(.delivered)
print(
    String(
        format: "%d queued, %d delivered in %.2f s: %.0f messages per second; peak memory %.1f MB (%.1f MB after queueing)",
        count, delivered, seconds, Double(delivered) / seconds, peakMemoryMB(), memoryBefore))
