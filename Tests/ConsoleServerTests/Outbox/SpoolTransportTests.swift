import ConsoleServer
import Foundation
import ModerationStore
import TestSupport
import Testing

/// The spool transport: each message a whole `<apns-id>.json` file, never seen half-written.
@Suite("Spool transport: one whole JSON file per message", .timeLimit(.minutes(3)))
struct SpoolTransportTests {
    @Test("a message becomes <id>.json holding the envelope: recipient, device tokens, headers, the payload as an object")
    func writesEnvelope() async throws {
        // setup: a spool directory that does not exist yet
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let spoolPath = directory.path("spool/outbox")
        let delivery = OutboxDelivery.sample(id: "2b0e7c9e-8d52-4a57-9a0d-4c1c2f3e5a61")

        // act
        let results = await SpoolTransport(directory: spoolPath).deliver(delivery)

        // check
        #expect(results == [DeliveryResult(outcome: .delivered)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: spoolPath) == ["2b0e7c9e-8d52-4a57-9a0d-4c1c2f3e5a61.json"])
        let data = try Data(contentsOf: URL(fileURLWithPath: spoolPath + "/2b0e7c9e-8d52-4a57-9a0d-4c1c2f3e5a61.json"))
        let envelope = try OutboxEnvelope.decode(data)
        #expect(
            envelope
                == OutboxEnvelope(
                    id: "2b0e7c9e-8d52-4a57-9a0d-4c1c2f3e5a61", eventType: "library.approved", recipientUserId: 7,
                    deviceTokens: [
                        .init(token: String(repeating: "a1", count: 32), environment: .production),
                        .init(token: String(repeating: "0f", count: 32), environment: .sandbox),
                    ],
                    headers: delivery.headers,
                    payload: .object([
                        "aps": .object([
                            "alert": .object(["title": .string("Your library is live"), "body": .string("Corner Books in Florence has been approved.")]),
                            "sound": .string("default"),
                        ]),
                        "data": .object(["library_id": .integer(42), "type": .string("library.approved")]),
                    ]),
                    createdAt: OutboxDelivery.sampleCreatedAt))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasPrefix(#"{"created_at":"2026-11-18T"#), "sorted keys, UTC time: \(text)")
        #expect(text.contains(#""payload":{"aps":{"alert":{"body":"#), "the payload is an object, not a string: \(text)")
        #expect(text.hasSuffix(#""version":1}"#))
        let directoryMode = try #require(try FileManager.default.attributesOfItem(atPath: spoolPath)[.posixPermissions] as? Int)
        let fileMode = try #require(
            try FileManager.default.attributesOfItem(atPath: spoolPath + "/2b0e7c9e-8d52-4a57-9a0d-4c1c2f3e5a61.json")[.posixPermissions] as? Int)
        #expect(directoryMode == 0o700)
        #expect(fileMode == 0o600)
    }

    @Test("a sender taking files from the directory while 200 messages (and 50 retries of them) are written never reads a partial file")
    func neverHalfWritten() async throws {
        // setup: 256 kB files, so one written in place would be visible while it grows; made as
        // they are written, so the 200 are never all in memory at once
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let spoolPath = directory.path("spool")
        let spool = SpoolTransport(directory: spoolPath)
        let padding = String(repeating: "Corner Books ", count: 20_000)
        let poller = SpoolPoller(directory: spoolPath)
        poller.start()

        // act: four writers at once, then retries of messages the sender may be reading
        var results: [DeliveryResult] = []
        for batch in [0..<200, 0..<50] {
            results += await withTaskGroup(of: [DeliveryResult].self) { group in
                for lane in 0..<4 {
                    group.addTask {
                        var laneResults: [DeliveryResult] = []
                        for index in batch where index % 4 == lane {
                            laneResults += await spool.deliver(.sample(id: "message-\(index)", title: "\(index) \(padding)"))
                        }
                        return laneResults
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
        }
        let findings = poller.stop()

        // check: every message reached the sender whole, and nothing else did
        #expect(results.count == 250)
        #expect(results.allSatisfy { $0.outcome == .delivered })
        #expect(findings.problems.isEmpty, "\(findings.problems.count) partial reads of \(findings.filesRead), e.g. \(findings.problems.prefix(3))")
        #expect(findings.messagesRead == Set((0..<200).map { "message-\($0)" }))
        let left = try FileManager.default.contentsOfDirectory(atPath: spoolPath)
        #expect(left.isEmpty, "no temporary file left behind: \(left)")
    }

    @Test("a spool that cannot be written (a file where its directory should be) is a retry, saying what failed")
    func unwritableIsRetry() async throws {
        // setup: an ordinary file in the way of the directory, and of its parent
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.path("occupied")
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("not a directory".utf8)))

        // act
        let asDirectory = await SpoolTransport(directory: blocker).deliver(.sample(id: "message-1"))
        let underneath = await SpoolTransport(directory: blocker + "/spool").deliver(.sample(id: "message-2"))

        // check
        let first = try #require(asDirectory.first)
        #expect(asDirectory.count == 1 && first.outcome == .retry && first.deviceToken.isEmpty)
        #expect(first.reason.contains("could not create \(blocker)/.message-1.json.tmp: Not a directory"), "\(first.reason)")
        #expect(first.reason.contains("check the spool directory's owner, mode and free space"))
        let second = try #require(underneath.first)
        #expect(second.outcome == .retry)
        #expect(second.reason.contains("could not create the directory \(blocker)/spool: Not a directory"), "\(second.reason)")
    }

    @Test("the same message written twice (a retry after a crash) leaves one file with the latest content")
    func sameIDReplaces() async throws {
        // setup: a temporary file a crashed write left behind
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let spoolPath = directory.path("spool")
        let spool = SpoolTransport(directory: spoolPath)
        try FileManager.default.createDirectory(atPath: spoolPath, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: spoolPath + "/.message-7.json.tmp", contents: Data("{\"half".utf8)))

        // act
        let first = await spool.deliver(.sample(id: "message-7", title: "First try"))
        let second = await spool.deliver(.sample(id: "message-7", title: "Second try"))

        // check
        #expect(first == [DeliveryResult(outcome: .delivered)] && second == first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: spoolPath) == ["message-7.json"])
        let envelope = try OutboxEnvelope.decode(Data(contentsOf: URL(fileURLWithPath: spoolPath + "/message-7.json")))
        guard case .object(let payload) = envelope.payload, case .object(let aps)? = payload["aps"], case .object(let alert)? = aps["alert"] else {
            Issue.record("payload is not the APNs shape: \(envelope.payload)")
            return
        }
        #expect(alert["title"] == .string("Second try"))
    }

    @Test("an id that would step out of the directory is refused, not written")
    func unsafeIDRefused() async throws {
        // setup
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        // act
        let results = await SpoolTransport(directory: directory.path("spool")).deliver(.sample(id: "../escaped"))

        // check
        #expect(results.first?.outcome == .failed)
        #expect(!FileManager.default.fileExists(atPath: directory.path("escaped.json")))
    }
}
