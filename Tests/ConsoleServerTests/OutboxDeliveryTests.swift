@testable import ConsoleServer
import Foundation
import Logging
import ModerationStore
import Sandbox
import Testing
import TestSupport

/// Decisions taken in the console becoming pushes at the APNs stand-in, over real HTTP/2 and
/// TLS, with the standard delivery policy.
@Suite("Outbox delivery to the APNs stand-in", .timeLimit(.minutes(3)))
struct OutboxDeliveryTests {
    private static func apns(_ standIn: APNsStandInFixture) -> APNsConfiguration {
        APNsConfiguration(
            keyPath: standIn.key.keyPath, keyID: standIn.key.keyID, teamID: standIn.key.teamID, topic: APNsStandInFixture.topic,
            productionURL: standIn.baseURL, sandboxURL: standIn.baseURL, caFilePath: standIn.certificatePath)
    }

    @Test("approving a photo pushes its submitter within 2 s; approving a library records its message as sent by Book Corners and pushes nothing")
    func policyEndToEnd() async throws {
        try await APNsStandInFixture.run { standIn in
            try await ConsoleFixture.withConsole(configure: { settings in
                settings.outbox = OutboxDeliveryConfiguration(transport: .apns(Self.apns(standIn)), dispatcher: .init(idlePoll: 0.2))
            }) { browser, sandbox, directory in
                // setup: every seeded user has a phone
                let store = try ModerationStore(path: directory.path("console.sqlite"))
                try store.importDevices(try DeviceTokenExport.parse(SandboxDeviceTokens.export(databasePath: directory.path("sandbox.sqlite"))), now: Date())
                try await browser.signIn()
                // act 1: approve a pending library (Book Corners pushes that itself)
                let libraries = try await browser.get("/libraries?status=pending")
                let slug = try #require(libraries.html.range(of: #"<a href="/libraries/"#).map { String(libraries.html[$0.upperBound...].prefix { $0 != "\"" && $0 != "?" }) })
                let detail = try await browser.get("/libraries/\(slug)")
                try await browser.post("/libraries/\(slug)/decide", form: [
                    ("csrf", detail.csrfToken ?? ""), ("key", detail.field("key", after: "/libraries/\(slug)/decide") ?? ""), ("seen", "pending"),
                    ("decision", "approve"),
                ])
                // act 2: approve a photo with a submitter
                let photos = try await browser.get("/photos")
                let card = try #require(photos.html.components(separatedBy: #"class="photo-card""#).dropFirst().first { !$0.contains("By anonymous") })
                let photoID = try #require(card.range(of: #"action="/photos/"#).map { String(card[$0.upperBound...].prefix { $0.isNumber }) })
                let decided = Date()
                try await browser.post("/photos/\(photoID)/decide", form: [
                    ("csrf", photos.csrfToken ?? ""), ("key", photos.field("key", after: "/photos/\(photoID)/decide") ?? ""), ("seen", "pending"),
                    ("decision", "approve"),
                ])
                // check: one push, the photo's, within 2 s
                var pushes: [APNsReceivedPush] = []
                while Date().timeIntervalSince(decided) < 2 {
                    pushes = await standIn.standIn.log.pushes()
                    if !pushes.isEmpty { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let push = try #require(pushes.first, "no push within 2 s")
                #expect(push.status == 200 && push.httpVersion == "HTTP/2")
                #expect(push.payload.contains(#""type":"photo.approved""#))
                let messages = try store.outboxMessages()
                let photoMessage = try #require(messages.first { $0.eventType == .photoApproved })
                #expect(push.headers["apns-id"]?.lowercased() == photoMessage.id.lowercased())
                // The stand-in logs a push before its answer reaches the dispatcher, which then stores it.
                for _ in 0..<100 where try store.outboxMessage(id: photoMessage.id)?.status != .delivered {
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(try store.outboxMessage(id: photoMessage.id)?.status == .delivered)
                let libraryMessage = try #require(messages.first { $0.eventType == .libraryApproved })
                #expect(libraryMessage.status == .recordedOnly && libraryMessage.sentByBookCorners)
                try await Task.sleep(for: .milliseconds(500))
                #expect(await standIn.standIn.log.total == 1, "the library's news went out once, from Book Corners, not from us")
                // the Outbox page says so
                let outbox = try await browser.get("/outbox")
                #expect(outbox.contains(#"<span class="status status-recorded-only">Sent by Book Corners</span>"#))
                #expect(outbox.contains(#"<span class="status status-delivered">Delivered</span>"#))
                _ = sandbox
            }
        }
    }

    @Test("a console that dies while sending: after restart the message goes out once more at most, with the same apns-id, and nothing is lost")
    func crashThenRestart() async throws {
        try await APNsStandInFixture.run { standIn in
            // setup: a message a dispatcher claimed and then died with
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.path("console.sqlite")
            let filler = OutboxFiller(path: path)
            let messages = try filler.add(3, firstRecipient: 70)
            try filler.addDevices(for: 70..<73)
            let store = try ModerationStore(path: path)
            let crashed = try store.claimDueOutboxMessages(owner: "crashed", limit: 1, leaseUntil: Date().addingTimeInterval(1), now: Date())
            #expect(crashed.map(\.id) == [messages[0].id])
            // act: a new console process's dispatcher, after the lease ran out
            try await Task.sleep(for: .milliseconds(1_100))
            let config = Self.apns(standIn)
            let transport = try APNsTransport(
                configuration: config, providerToken: APNsProviderToken(key: try config.loadSigningKey(), keyID: config.keyID, teamID: config.teamID))
            let dispatcher = OutboxDispatcher(store: try ModerationStore(path: path), transport: transport, policy: .standard, logger: Logger(label: "test"))
            while try await dispatcher.deliverDueBatch() > 0 {}
            await transport.shutdown()
            // check
            let received = await standIn.standIn.log.pushes().compactMap { $0.headers["apns-id"]?.lowercased() }
            #expect(received.sorted() == messages.map { $0.id.lowercased() }.sorted(), "each exactly once, the claimed one with its own apns-id")
            for message in messages { #expect(try store.outboxMessage(id: message.id)?.status == .delivered) }
            #expect(try store.outboxMessage(id: messages[0].id)?.attempts == 2)
        }
    }
}
