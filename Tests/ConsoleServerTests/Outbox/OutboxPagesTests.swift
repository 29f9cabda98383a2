import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The Outbox and My devices pages, through the console's real routes, with a dispatcher
/// running on a scripted transport (the real transports have their own tests).
@Suite("Outbox and My devices pages", .timeLimit(.minutes(3)))
struct OutboxPagesTests {
    /// Runs the console with delivery through `transport`.
    private func withConsole(
        _ transport: ScriptedTransport, _ body: @escaping @Sendable (Browser, TemporaryDirectory) async throws -> Void
    ) async throws {
        try await ConsoleFixture.withConsole(
            mirror: .empty,
            configure: { settings in
                settings.outbox = OutboxDeliveryConfiguration(
                    transport: .custom(transport, description: "A scripted transport"),
                    dispatcher: .init(firstBackoff: 60, idlePoll: 0.1))
            }
        ) { browser, _, directory in
            try await body(browser, directory)
        }
    }

    private func waitFor(_ id: String, _ state: OutboxMessage.State, in directory: TemporaryDirectory) async throws {
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        for _ in 0..<100 {
            if try await store.outboxMessage(id: id)?.status == state { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("\(id) never became \(state); it is \(await String(describing: try store.outboxMessage(id: id)?.status))")
    }

    @Test("a failed message shows why in words (Apple's code left to operators), and Retry now (confirmed, audited) sends it again")
    func retryNow() async throws {
        let transport = ScriptedTransport()
        // What the APNs transport stores for a 413, code first.
        let refusal = APNsAnswer(status: 413, reason: "PayloadTooLarge").result(for: "")
        transport.script([DeliveryResult(outcome: .failed, httpStatus: 413, reason: refusal.reason)])
        try await withConsole(transport) { browser, directory in
            // setup: a message that fails
            let filler = OutboxFiller(path: directory.path("console.sqlite"))
            // The device first: a message the dispatcher finds before it would have no device to go to.
            try await filler.addDevices(for: [50])
            let message = try await filler.add(1, firstRecipient: 50)[0]
            try await waitFor(message.id, .failed, in: directory)
            try await browser.signIn()
            // the list and the page say why
            let list = try await browser.get("/outbox?status=failed")
            #expect(list.contains("Apple answered: the notification is over 4096 bytes; it cannot be sent as it is."), "\(list)")
            #expect(list.contains("A scripted transport"))
            let page = try await browser.get("/outbox/\(message.id)")
            #expect(page.contains("Apple answered: the notification is over 4096 bytes"), "\(page)")
            for page in [list, page] { #expect(!page.contains("PayloadTooLarge") && !page.contains("APNs answered")) }
            #expect(page.contains(#"<span class="status status-failed">Failed</span>"#))
            #expect(page.contains(#"<td data-label="HTTP">413</td>"#))
            // act 1: Retry now asks first
            let confirm = try await browser.post("/outbox/\(message.id)/retry", form: [("csrf", page.csrfToken ?? "")])
            #expect(confirm.status == .ok)
            #expect(confirm.contains("Retry this message now?"))
            await #expect(try ModerationStore(path: directory.path("console.sqlite")).outboxMessage(id: message.id)?.status == .failed)
            // act 2: confirmed
            let done = try await browser.post("/outbox/\(message.id)/retry", form: [("csrf", page.csrfToken ?? ""), ("confirmed", "1")])
            #expect(done.status == .seeOther || done.status == .found)
            // check: delivered on the second try, with the same apns-id, and audited
            try await waitFor(message.id, .delivered, in: directory)
            #expect(transport.delivered.map(\.messageID) == [message.id])
            let after = try await browser.get("/outbox/\(message.id)")
            #expect(after.contains("Queued again: the dispatcher tries it now."))
            #expect(!after.contains("Retry now…"))
            let entry = try await #require(
                try ModerationStore(path: directory.path("console.sqlite")).auditEntries(limit: 5).first { $0.action == "outbox.retry" })
            #expect(entry.actorUsername == SeedAccounts.demoStaffUsername)
            #expect(entry.targetId == message.id)
            #expect(entry.statusBefore == "failed" && entry.statusAfter == "pending")
            // the audit entry leads back to the message
            let audited = try await browser.get("/audit/\(entry.id ?? 0)")
            #expect(audited.contains(#"<a href="/outbox/\#(message.id)">Open the message in the outbox →</a>"#))
        }
    }

    @Test("Discard keeps the message, marked discarded, never delivered; a second Discard says nothing was done")
    func discard() async throws {
        let transport = ScriptedTransport()
        transport.script([DeliveryResult(outcome: .failed, httpStatus: 400, reason: "APNs refused it: BadTopic.")])
        try await withConsole(transport) { browser, directory in
            let filler = OutboxFiller(path: directory.path("console.sqlite"))
            // The device first: a message the dispatcher finds before it would have no device to go to.
            try await filler.addDevices(for: [51])
            let message = try await filler.add(1, firstRecipient: 51)[0]
            try await waitFor(message.id, .failed, in: directory)
            try await browser.signIn()
            let page = try await browser.get("/outbox/\(message.id)")
            let confirm = try await browser.post("/outbox/\(message.id)/discard", form: [("csrf", page.csrfToken ?? "")])
            #expect(confirm.contains("Discard this message?"))
            try await browser.post("/outbox/\(message.id)/discard", form: [("csrf", page.csrfToken ?? ""), ("confirmed", "1")])
            let after = try await browser.get("/outbox/\(message.id)")
            #expect(after.contains(#"<span class="status status-discarded">Discarded</span>"#))
            #expect(after.contains("Discarded: it stays here for the record and is never delivered."))
            #expect(!after.contains("Discard…") && !after.contains("Retry now…"))
            // a stale page's second Discard
            try await browser.post("/outbox/\(message.id)/discard", form: [("csrf", page.csrfToken ?? ""), ("confirmed", "1")])
            #expect(try await browser.get("/outbox/\(message.id)").contains("Nothing done: the message is discarded now"))
            #expect(transport.delivered.isEmpty)
        }
    }

    @Test("Retry and Discard refuse a missing CSRF token and answer 404 for an unknown message")
    func refusals() async throws {
        try await withConsole(ScriptedTransport()) { browser, _ in
            try await browser.signIn()
            let dashboard = try await browser.get("/")
            #expect(try await browser.post("/outbox/nope/retry", form: [("csrf", dashboard.csrfToken ?? ""), ("confirmed", "1")]).status == .notFound)
            #expect(try await browser.get("/outbox/%3Cscript%3E").status == .notFound)
            #expect(try await browser.post("/outbox/nope/discard", form: [("confirmed", "1")]).status == .forbidden)
        }
    }

    @Test("My devices: a bad token is refused with words and nothing added; a good one is listed, used and removable; hostile input is escaped")
    func myDevices() async throws {
        try await withConsole(ScriptedTransport()) { browser, directory in
            try await browser.signIn()
            let signedIn = try await browser.get("/")
            #expect(signedIn.contains(#"<a href="/devices" class="devices-link">My devices</a>"#))
            let empty = try await browser.get("/devices")
            #expect(empty.contains("No device yet: nothing can be pushed to you."))
            // a hostile, invalid token
            let refused = try await browser.post(
                "/devices",
                form: [
                    ("csrf", empty.csrfToken ?? ""), ("token", #"<script>alert("x")</script> 📚 مكتبة"#), ("environment", "sandbox"),
                ])
            #expect(refused.status == .badRequest)
            #expect(refused.contains("A device token is 64 hexadecimal digits"))
            #expect(refused.contains("&lt;script&gt;"))
            #expect(!refused.contains("<script>alert"))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            await #expect(try store.devices().isEmpty)
            // a good one, upper case and padded as someone might paste it
            let token = String(repeating: "AB12", count: 16)
            try await browser.post("/devices", form: [("csrf", empty.csrfToken ?? ""), ("token", "  \(token) "), ("environment", "production")])
            let listed = try await browser.get("/devices")
            #expect(listed.contains("Added ab12ab12…ab12 (production): your pushes go to it."))
            let device = try await #require(try store.devices().first)
            #expect(device.token == token.lowercased() && device.environment == .production && device.source == "staff")
            await #expect(try store.auditEntries(limit: 3).contains { $0.action == "device.add" })
            // someone else's device id is not found
            let other = try await store.addDevice(userID: 9_999, token: String(repeating: "cd", count: 32), environment: .sandbox, now: Date())
            #expect(try await browser.post("/devices/\(other.id ?? 0)/remove", form: [("csrf", listed.csrfToken ?? "")]).status == .notFound)
            // remove mine
            try await browser.post("/devices/\(device.id ?? 0)/remove", form: [("csrf", listed.csrfToken ?? "")])
            await #expect(try store.devices(userID: device.userId).isEmpty)
            await #expect(try store.devices().count == 1)
            await #expect(try store.auditEntries(limit: 3).contains { $0.action == "device.remove" })
        }
    }

    @Test("the dashboard warns, in words to act on, when delivery keeps failing")
    func dashboardWarning() async throws {
        let transport = ScriptedTransport()
        // Every attempt fails, however many a loaded machine makes before the page is read: the
        // warning must still be there when it is (a fourth attempt that got through hid it once).
        transport.script(
            Array(repeating: DeliveryResult(outcome: .retry, httpStatus: 403, reason: "APNs refused our token: InvalidProviderToken."), count: 100))
        try await withConsole(transport) { browser, directory in
            let filler = OutboxFiller(path: directory.path("console.sqlite"))
            // The devices first: a message the dispatcher took before its recipient had a device was
            // no failed attempt, and waited a minute's backoff (two clean-clone runs missed three failures).
            try await filler.addDevices(for: 60..<63)
            let messages = try await filler.add(3, firstRecipient: 60)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            for _ in 0..<1_200 where try await store.outboxHealth(since: Date().addingTimeInterval(-600)).recentFailures < 3 {
                try await Task.sleep(for: .milliseconds(50))
            }
            try #require(try await store.outboxHealth(since: Date().addingTimeInterval(-600)).recentFailures >= 3, "three failed attempts recorded")
            try await browser.signIn()
            let dashboard = try await browser.get("/")
            #expect(dashboard.contains("Push delivery keeps failing: none of the last ") && dashboard.contains(" attempts (15 min) got through."))
            #expect(dashboard.contains("Apple refuses the console&#39;s signing key: check the key file, key id and team id"))
            #expect(messages.count == 3)
        }
    }
}
