import Foundation
import Logging
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

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
                try await store.importDevices(
                    try DeviceTokenExport.parse(SandboxDeviceTokens.export(databasePath: directory.path("sandbox.sqlite"))), now: Date())
                try await browser.signIn()
                // act 1: approve a pending library (Book Corners pushes that itself)
                let libraries = try await browser.get("/libraries?status=pending")
                let slug = try #require(
                    libraries.html.range(of: #"<a href="/libraries/"#).map { String(libraries.html[$0.upperBound...].prefix { $0 != "\"" && $0 != "?" }) })
                let detail = try await browser.get("/libraries/\(slug)")
                try await browser.post(
                    "/libraries/\(slug)/decide",
                    form: [
                        ("csrf", detail.csrfToken ?? ""), ("key", detail.field("key", after: "/libraries/\(slug)/decide") ?? ""), ("seen", "pending"),
                        ("decision", "approve"),
                    ])
                // act 2: approve a photo with a submitter
                let photos = try await browser.get("/photos")
                let card = try #require(photos.html.components(separatedBy: #"class="photo-card""#).dropFirst().first { !$0.contains("By anonymous") })
                let photoID = try #require(card.range(of: #"action="/photos/"#).map { String(card[$0.upperBound...].prefix { $0.isNumber }) })
                let decided = Date()
                try await browser.post(
                    "/photos/\(photoID)/decide",
                    form: [
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
                let messages = try await store.outboxMessages()
                let photoMessage = try #require(messages.first { $0.eventType == .photoApproved })
                #expect(push.headers["apns-id"]?.lowercased() == photoMessage.id.lowercased())
                // The stand-in logs a push before its answer reaches the dispatcher, which then stores it.
                for _ in 0..<100 where try await store.outboxMessage(id: photoMessage.id)?.status != .delivered {
                    try await Task.sleep(for: .milliseconds(20))
                }
                await #expect(try store.outboxMessage(id: photoMessage.id)?.status == .delivered)
                // The library's approval is sent on its own; under load its answer can come after the photo's push.
                var libraryMessage = try await store.outboxMessages().first { $0.eventType == .libraryApproved }
                for _ in 0..<100 where libraryMessage?.status != .recordedOnly {
                    try await Task.sleep(for: .milliseconds(50))
                    libraryMessage = try await store.outboxMessages().first { $0.eventType == .libraryApproved }
                }
                #expect(libraryMessage?.status == .recordedOnly && libraryMessage?.sentByBookCorners == true, "\(String(describing: libraryMessage))")
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
            let messages = try await filler.add(3, firstRecipient: 70)
            try await filler.addDevices(for: 70..<73)
            let store = try ModerationStore(path: path)
            let crashed = try await store.claimDueOutboxMessages(owner: "crashed", limit: 1, leaseUntil: Date().addingTimeInterval(1), now: Date())
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
            for message in messages { await #expect(try store.outboxMessage(id: message.id)?.status == .delivered) }
            await #expect(try store.outboxMessage(id: messages[0].id)?.attempts == 2)
        }
    }

    @Test("Retry now after a message failed with one of two devices reached: only the device that has not had it is pushed")
    func retryGoesOnlyToDevicesNotReached() async throws {
        try await APNsStandInFixture.run { standIn in
            // setup: two phones; one push of the two meets a 503, and the message gives up after one attempt
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.path("console.sqlite")
            let filler = OutboxFiller(path: path)
            let sent = try await filler.add(1, firstRecipient: 80)[0]
            let firstTokens = try await filler.addDevices(for: [80], slot: 1).map(\.token)
            let tokens = try await firstTokens + filler.addDevices(for: [80], slot: 2).map(\.token)
            let store = try ModerationStore(path: path)
            await standIn.standIn.faults.apply(.init(unavailable: 1))
            try await standIn.deliverDueMessages(of: store, maxAttempts: 1)
            let failed = try await #require(try store.outboxMessage(id: sent.id))
            let reachedFirst = await standIn.standIn.log.pushes().filter { $0.status == 200 }.map(\.deviceToken)
            // act: a staff member's Retry now
            try await store.retryOutboxMessage(sent.id, audit: OutboxFiller.staffAudit("outbox.retry", messageID: sent.id), now: Date())
            try await standIn.deliverDueMessages(of: store, maxAttempts: 1)
            // check
            #expect(failed.status == .failed, "\(failed.status): \(failed.lastReason)")
            #expect(reachedFirst.count == 1)
            let pushes = await standIn.standIn.log.pushes()
            #expect(pushes.count == 3, "two at first, then only the one not reached")
            #expect(pushes.filter { $0.status == 200 }.map(\.deviceToken).sorted() == tokens.sorted(), "each phone got it exactly once")
            await #expect(try store.outboxMessage(id: sent.id)?.status == .delivered)
        }
    }

    /// Book Corners' export of one token, as `dumpdata users.DeviceToken` writes it.
    private static func export(
        user: Int, token: String, environment: Device.Environment, updatedAt: Date, lastUsedAt: Date? = nil
    ) throws -> [DeviceTokenExport.Entry] {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let lastUsed = lastUsedAt.map { #""\#(format.string(from: $0))""# } ?? "null"
        let json = """
            [{"model": "users.devicetoken", "pk": 1, "fields": {"user": \(user), "token": "\(token)", "environment": "\(environment.rawValue)",
              "is_active": true, "created_at": "2026-01-01T00:00:00Z", "updated_at": "\(format.string(from: updatedAt))", "last_used_at": \(lastUsed)}}]
            """
        return try DeviceTokenExport.parse(Data(json.utf8))
    }

    @Test("410 Unregistered stops a token until Book Corners reports it registered again after the time APNs gave; an older export does not bring it back")
    func unregisteredUntilRegisteredAgain() async throws {
        try await APNsStandInFixture.run { standIn in
            // setup: one phone, imported; APNs calls it unregistered
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.path("console.sqlite")
            let filler = OutboxFiller(path: path)
            let store = try ModerationStore(path: path)
            let token = OutboxFiller.token(user: 84)
            let registered = Date().addingTimeInterval(-86_400)
            let imported = try Self.export(user: 84, token: token, environment: .sandbox, updatedAt: registered, lastUsedAt: registered)
            #expect(imported.count == 1)
            try await store.importDevices(imported, now: Date())
            await standIn.standIn.faults.apply(.init(unregistered: [token]))
            let first = try await filler.add(1, firstRecipient: 84)[0]
            try await standIn.deliverDueMessages(of: store)
            // act 1: the nightly import lists it as before; a message follows
            try await store.importDevices(imported, now: Date())
            let second = try await filler.add(1, firstRecipient: 84)[0]
            try await standIn.deliverDueMessages(of: store)
            let pushesWhileGone = await standIn.standIn.log.total
            // act 2: the app registers the token again (Book Corners' updated_at moves past APNs' time)
            await standIn.standIn.faults.clear()
            try await store.importDevices(
                try Self.export(user: 84, token: token, environment: .sandbox, updatedAt: Date().addingTimeInterval(1), lastUsedAt: registered), now: Date())
            let third = try await filler.add(1, firstRecipient: 84)[0]
            try await standIn.deliverDueMessages(of: store)
            // check
            await #expect(try store.outboxMessage(id: first.id)?.status == .noDevice)
            await #expect(try store.outboxMessage(id: second.id)?.status == .noDevice, "an export older than APNs' word does not bring it back")
            #expect(pushesWhileGone == 1, "nothing pushed to a token APNs called unregistered")
            await #expect(try store.outboxMessage(id: third.id)?.status == .delivered)
            let pushes = await standIn.standIn.log.pushes()
            #expect(pushes.count == 2 && pushes.first?.status == 200 && pushes.first?.deviceToken == token)
        }
    }

    @Test("BadDeviceToken (most often the other environment) marks the token with reason and time; a successful push to the other environment brings it back")
    func badDeviceTokenTriesTheOtherEnvironment() async throws {
        try await APNsStandInFixture.run { standIn in
            // setup: a token Book Corners calls sandbox, which APNs' sandbox host refuses (it is a production one)
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.path("console.sqlite")
            let filler = OutboxFiller(path: path)
            let store = try ModerationStore(path: path)
            let token = OutboxFiller.token(user: 86)
            try await store.importDevices(try Self.export(user: 86, token: token, environment: .sandbox, updatedAt: Date()), now: Date())
            await standIn.standIn.faults.apply(.init(badDeviceToken: [token: "127.0.0.1"]))
            let twoHosts = { (store: ModerationStore) in
                _ = try await standIn.deliverDueMessages(of: store, sandboxHost: "127.0.0.1", productionHost: "localhost")
            }
            let first = try await filler.add(1, firstRecipient: 86)[0]
            try await twoHosts(store)
            let marked = try await #require(try store.devices(userID: 86).first)
            // act: the next message
            let second = try await filler.add(1, firstRecipient: 86)[0]
            try await twoHosts(store)
            // check
            await #expect(try store.outboxMessage(id: first.id)?.status == .noDevice)
            #expect(!marked.active && marked.disabledReason.contains("BadDeviceToken") && marked.disabledAt != nil, "\(marked)")
            await #expect(try store.outboxMessage(id: second.id)?.status == .delivered)
            let pushes = await standIn.standIn.log.pushes()
            #expect(pushes.map(\.authority) == ["localhost:\(standIn.port)", "127.0.0.1:\(standIn.port)"], "tried on the other host")
            #expect(pushes.map(\.status) == [200, 400])
            let back = try await #require(try store.devices(userID: 86).first)
            #expect(back.active && back.environment == .production, "\(back)")
        }
    }

    @Test("BadDeviceToken after a few minutes pointed at the wrong APNs host: the next import brings every token back")
    func badDeviceTokenBackOnImport() async throws {
        try await APNsStandInFixture.run { standIn in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let path = directory.path("console.sqlite")
            let filler = OutboxFiller(path: path)
            let store = try ModerationStore(path: path)
            let token = OutboxFiller.token(user: 87)
            let imported = try Self.export(user: 87, token: token, environment: .sandbox, updatedAt: Date().addingTimeInterval(-3_600))
            try await store.importDevices(imported, now: Date())
            // both hosts refuse it for a while (the console was pointed at the wrong one)
            await standIn.standIn.faults.apply(.init(badDeviceToken: [token: "localhost"]))
            let lost = try await filler.add(1, firstRecipient: 87)[0]
            try await standIn.deliverDueMessages(of: store, sandboxHost: "localhost", productionHost: "localhost")
            // act: the setting is fixed, and the import runs as every night
            await standIn.standIn.faults.clear()
            try await store.importDevices(imported, now: Date())
            let next = try await filler.add(1, firstRecipient: 87)[0]
            try await standIn.deliverDueMessages(of: store)
            // check
            await #expect(try store.outboxMessage(id: lost.id)?.status == .noDevice)
            await #expect(try store.outboxMessage(id: next.id)?.status == .delivered)
            await #expect(try store.devices(userID: 87).first?.active == true)
        }
    }
}
