import Clocks
import Foundation
import Logging
import ModerationStore
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@testable import ConsoleServer

/// The dispatcher's decisions on a real SQLite file: policy, devices, retries, dead letters,
/// crashes and two dispatchers on one database.
@Suite("Outbox dispatcher", .timeLimit(.minutes(3)))
struct OutboxDispatcherTests {
    private let directory: TemporaryDirectory
    private let path: String
    private let store: ModerationStore
    private let filler: OutboxFiller

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.path("console.sqlite")
        store = try ModerationStore(path: path)
        filler = OutboxFiller(path: path)
    }

    private func dispatcher(
        _ transport: any OutboxTransport, policy: DeliveryPolicy = .standard, maxAttempts: Int = 10, owner: String = "one",
        leaseSeconds: TimeInterval = 120, clock: ServiceClock = .system
    ) -> OutboxDispatcher {
        OutboxDispatcher(
            store: store, transport: transport, policy: policy,
            configuration: .init(maxAttempts: maxAttempts, leaseSeconds: leaseSeconds, firstBackoff: 5, maxBackoff: 3600),
            logger: Logger(label: "test"), owner: owner, jitter: { 0.5 }, clock: clock)
    }

    private func message(_ id: String) async throws -> OutboxMessage {
        try #require(try await store.outboxMessage(id: id))
    }

    @Test("with the standard policy, a library approval Book Corners sends itself is recorded only; a photo approval is delivered once")
    func standardPolicy() async throws {
        // setup
        let library = try await filler.add(1, type: .libraryApproved, firstRecipient: 7, sentByBookCorners: true)[0]
        let photo = try await filler.add(1, type: .photoApproved, firstRecipient: 8)[0]
        try await filler.addDevices(for: [7, 8])
        let transport = ScriptedTransport()
        // act
        try await dispatcher(transport).deliverDueBatch()
        // check
        await #expect(try message(library.id).status == .recordedOnly)
        await #expect(try message(library.id).lastReason == "Book Corners sends this itself.")
        await #expect(try message(photo.id).status == .delivered)
        #expect(transport.delivered.map(\.messageID) == [photo.id])
        let attempts = try await store.outboxAttempts(messageID: photo.id)
        #expect(attempts.map(\.outcome) == [.delivered])
        #expect(attempts.first?.deviceToken == OutboxFiller.token(user: 8))
        await #expect(try store.outboxAttempts(messageID: library.id).isEmpty)
        await #expect(try store.devices(userID: 8).first?.lastSuccessAt != nil)
    }

    @Test("a library rejection Book Corners does not push (no reason) is delivered even under the standard policy")
    func rejectionWithoutReasonDelivered() async throws {
        let rejected = try await filler.add(1, type: .libraryRejected, firstRecipient: 7, sentByBookCorners: false)[0]
        try await filler.addDevices(for: [7])
        try await dispatcher(ScriptedTransport()).deliverDueBatch()
        await #expect(try message(rejected.id).status == .delivered)
    }

    @Test("a recipient without an active device token makes the message 'no device', not an error")
    func noDevice() async throws {
        let sent = try await filler.add(1, firstRecipient: 40)[0]
        let transport = ScriptedTransport()
        try await dispatcher(transport).deliverDueBatch()
        await #expect(try message(sent.id).status == .noDevice)
        await #expect(try message(sent.id).lastReason == "The recipient has no active device token.")
        #expect(transport.calls == 0)
    }

    @Test("a passing failure backs off exponentially and delivers later with the same apns-id; other devices are not sent twice")
    func retryThenDeliver() async throws {
        // setup: two devices; the second answers 503 once
        let sent = try await filler.add(1, firstRecipient: 9)[0]
        try await filler.addDevices(for: [9], slot: 1)
        try await filler.addDevices(for: [9], slot: 2)
        let transport = ScriptedTransport()
        transport.script(
            [DeliveryResult(outcome: .retry, httpStatus: 503, reason: "APNs answered 503 ServiceUnavailable.")], for: OutboxFiller.token(user: 9, slot: 2))
        let start = Date()
        let dispatcher = dispatcher(transport)
        // act 1
        try await dispatcher.deliverDueBatch(now: start)
        // check 1: pending, due after the first backoff (5 s × jitter 1.0), reason in words
        let waiting = try await message(sent.id)
        #expect(waiting.status == .pending)
        #expect(waiting.nextAttemptAt.timeIntervalSince(start) >= 4.9)
        #expect(waiting.lastReason.hasPrefix("APNs answered 503 ServiceUnavailable. It will be tried again at"))
        #expect(try await dispatcher.deliverDueBatch(now: start.addingTimeInterval(1)) == 0)
        // act 2
        try await dispatcher.deliverDueBatch(now: waiting.nextAttemptAt)
        // check 2
        await #expect(try message(sent.id).status == .delivered)
        await #expect(try message(sent.id).attempts == 2)
        #expect(transport.delivered.map(\.token).sorted() == [OutboxFiller.token(user: 9, slot: 1), OutboxFiller.token(user: 9, slot: 2)])
        await #expect(try store.outboxAttempts(messageID: sent.id).map(\.outcome) == [.delivered, .retry, .delivered])
        #expect(dispatcher.backoff(afterAttempt: 3) == 20)
        #expect(dispatcher.backoff(afterAttempt: 30) == 3600)
    }

    @Test("a message that keeps failing becomes failed after the configured attempts, with the last reason in words")
    func deadLetter() async throws {
        let sent = try await filler.add(1, firstRecipient: 11)[0]
        try await filler.addDevices(for: [11])
        let transport = ScriptedTransport()
        transport.script(Array(repeating: DeliveryResult(outcome: .retry, httpStatus: 429, reason: "APNs answered 429 TooManyRequests."), count: 5))
        let dispatcher = dispatcher(transport, maxAttempts: 3)
        var now = Date()
        for _ in 0..<3 {
            try await dispatcher.deliverDueBatch(now: now)
            now = try await message(sent.id).nextAttemptAt
        }
        let failed = try await message(sent.id)
        #expect(failed.status == .failed)
        #expect(failed.lastReason == "Gave up after 3 attempts; the last: APNs answered 429 TooManyRequests. It is not tried again unless someone retries it.")
        #expect(failed.finishedAt != nil)
        #expect(try await dispatcher.deliverDueBatch(now: now.addingTimeInterval(86_400)) == 0)
    }

    @Test("a refused token is disabled and not retried; the message goes on to the recipient's other device")
    func refusedToken() async throws {
        let sent = try await filler.add(1, firstRecipient: 12)[0]
        try await filler.addDevices(for: [12], slot: 1)
        try await filler.addDevices(for: [12], slot: 2)
        let transport = ScriptedTransport()
        transport.script([DeliveryResult(outcome: .deviceDisabled, httpStatus: 410, reason: "Unregistered")], for: OutboxFiller.token(user: 12, slot: 1))
        try await dispatcher(transport).deliverDueBatch()
        await #expect(try message(sent.id).status == .delivered)
        let devices = try await store.devices(userID: 12)
        let gone = try #require(devices.first { $0.token == OutboxFiller.token(user: 12, slot: 1) })
        #expect(!gone.active)
        #expect(gone.disabledReason == "Unregistered")
        await #expect(try store.activeDevices(userID: 12).map(\.token) == [OutboxFiller.token(user: 12, slot: 2)])
    }

    @Test("every token refused: the message is 'no device' and says why")
    func everyTokenRefused() async throws {
        let sent = try await filler.add(1, firstRecipient: 13)[0]
        try await filler.addDevices(for: [13])
        let transport = ScriptedTransport()
        transport.script([DeliveryResult(outcome: .deviceDisabled, httpStatus: 400, reason: "BadDeviceToken")])
        try await dispatcher(transport).deliverDueBatch()
        await #expect(try message(sent.id).status == .noDevice)
        await #expect(try message(sent.id).lastReason == "Every device token was refused (BadDeviceToken); they are disabled.")
    }

    @Test("a refusal final for the message (413) fails it at once with the reason")
    func finalRefusal() async throws {
        let sent = try await filler.add(1, firstRecipient: 14)[0]
        try await filler.addDevices(for: [14])
        let transport = ScriptedTransport()
        transport.script([DeliveryResult(outcome: .failed, httpStatus: 413, reason: "APNs refused it: PayloadTooLarge.")])
        try await dispatcher(transport).deliverDueBatch()
        await #expect(try message(sent.id).status == .failed)
        await #expect(try message(sent.id).lastReason == "APNs refused it: PayloadTooLarge.")
    }

    @Test("judged as a whole: one device refusing for good while another may still take it waits; one taking it while another refuses is delivered")
    func mixedDevices() async throws {
        // setup: two recipients with two devices each
        let messages = try await filler.add(2, firstRecipient: 30)
        for user in 30...31 {
            try await filler.addDevices(for: [user], slot: 1)
            try await filler.addDevices(for: [user], slot: 2)
        }
        let transport = ScriptedTransport()
        let refused = DeliveryResult(outcome: .failed, httpStatus: 400, reason: "APNs answered DeviceTokenNotForTopic (HTTP 400).")
        transport.script([refused], for: OutboxFiller.token(user: 30, slot: 1))
        transport.script([DeliveryResult(outcome: .retry, httpStatus: 503, reason: "APNs answered 503.")], for: OutboxFiller.token(user: 30, slot: 2))
        transport.script([refused], for: OutboxFiller.token(user: 31, slot: 1))
        // act
        try await dispatcher(transport).deliverDueBatch()
        // check
        await #expect(try message(messages[0].id).status == .pending, "the device that may still take it is tried again")
        let second = try await message(messages[1].id)
        #expect(second.status == .delivered)
        #expect(second.lastReason == "Not every device took it: APNs answered DeviceTokenNotForTopic (HTTP 400).")
    }

    @Test("a Retry-After of years, or not a number, waits at most the longest backoff")
    func retryAfterCapped() async throws {
        let messages = try await filler.add(2, firstRecipient: 32)
        try await filler.addDevices(for: 32...33)
        let transport = ScriptedTransport()
        transport.script([DeliveryResult(outcome: .retry, httpStatus: 503, reason: "busy", retryAfter: 999_999_999_999)], for: OutboxFiller.token(user: 32))
        transport.script([DeliveryResult(outcome: .retry, httpStatus: 503, reason: "busy", retryAfter: .infinity)], for: OutboxFiller.token(user: 33))
        let start = Date()
        try await dispatcher(transport).deliverDueBatch(now: start)
        // The wait runs from the answer, which a loaded machine may give seconds after `start`.
        let answered = Date()
        for sent in messages {
            let waiting = try await message(sent.id)
            #expect(waiting.status == .pending)
            #expect(waiting.nextAttemptAt.timeIntervalSince(answered) <= 3_600 + 1, "\(waiting.nextAttemptAt.timeIntervalSince(start)) s after the batch began")
        }
    }

    @Test("a token found gone is not counted as failing delivery on the dashboard")
    func goneTokensAreNotFailures() async throws {
        try await filler.add(3, firstRecipient: 34)
        try await filler.addDevices(for: 34...36)
        let transport = ScriptedTransport()
        transport.script(Array(repeating: DeliveryResult(outcome: .deviceDisabled, httpStatus: 410, reason: "Unregistered"), count: 3))
        try await dispatcher(transport).deliverDueBatch()
        let health = try await store.outboxHealth(since: Date().addingTimeInterval(-60))
        #expect(health.recentFailures == 0)
        #expect(DeliveryWarning.text(health: health, isOff: false) == nil)
    }

    @Test("a message past its apns-expiration fails instead of being sent")
    func expired() async throws {
        let sent = try await filler.add(1, firstRecipient: 15, expiresAt: Date().addingTimeInterval(-60))[0]
        try await filler.addDevices(for: [15])
        let transport = ScriptedTransport()
        try await dispatcher(transport).deliverDueBatch()
        await #expect(try message(sent.id).status == .failed)
        await #expect(try message(sent.id).lastReason.hasPrefix("Expired at "))
        #expect(transport.calls == 0)
    }

    @Test(
        "a dispatcher that dies while sending: another claims the message once the lease runs out, with the same apns-id; the dead one's late outcome is refused"
    )
    func crashWhileSending() async throws {
        // setup: the first dispatcher claims and never settles (it crashed)
        let sent = try await filler.add(1, firstRecipient: 16)[0]
        try await filler.addDevices(for: [16])
        let now = Date()
        let claimed = try await store.claimDueOutboxMessages(owner: "crashed", limit: 10, leaseUntil: now.addingTimeInterval(120), now: now)
        #expect(claimed.map(\.id) == [sent.id])
        let transport = ScriptedTransport()
        let survivor = dispatcher(transport, owner: "survivor")
        // act 1: before the lease runs out, nothing is taken
        #expect(try await survivor.deliverDueBatch(now: now.addingTimeInterval(60)) == 0)
        // act 2: after it, the survivor delivers the same message
        #expect(try await survivor.deliverDueBatch(now: now.addingTimeInterval(121)) == 1)
        // check
        #expect(transport.delivered.map(\.messageID) == [sent.id])
        await #expect(try message(sent.id).status == .delivered)
        await #expect(try message(sent.id).attempts == 2)
        let late = OutboxAttempt(
            messageId: sent.id, deviceToken: OutboxFiller.token(user: 16), transport: "scripted", httpStatus: 410, outcome: .deviceDisabled,
            reason: "Unregistered", attemptedAt: Date())
        await #expect(throws: OutboxStoreError.lostClaim(messageID: sent.id)) {
            try await store.settleOutboxMessage(sent.id, owner: "crashed", to: .failed, reason: "late", attempts: [late], now: Date())
        }
        await #expect(try message(sent.id).status == .delivered, "the state the survivor stored stands")
        await #expect(try store.outboxAttempts(messageID: sent.id).map(\.outcome) == [.delivered, .deviceDisabled], "what the late attempt learned is kept")
        await #expect(try store.activeDevices(userID: 16).isEmpty, "and the token it found gone is disabled")
    }

    @Test("a batch held up five times its lease keeps its claim, renewed on the dispatcher's clock: a second dispatcher does not take the message meanwhile")
    func slowBatchKeepsItsLease() async throws {
        // setup: a 30-s lease on a clock the test moves; a transport that answers when told
        let sent = try await filler.add(1, firstRecipient: 19)[0]
        try await filler.addDevices(for: [19])
        let clock = TestClock<Duration>()
        let time = ServiceClock(clock, startingAt: Date())
        let slow = HeldTransport()
        let holder = dispatcher(slow, owner: "holder", leaseSeconds: 30, clock: time)
        let other = ScriptedTransport()
        let rival = dispatcher(other, owner: "rival", leaseSeconds: 30, clock: time)
        let held = Task { try await holder.deliverDueBatch() }
        try await MirrorFixture.eventually("the delivery is under way", timeout: .seconds(10)) { slow.isHolding }
        // act: 150 s pass on the clock, 15 s at a time; the rival looks after each step
        for _ in 0..<10 {
            await clock.advance(by: .seconds(15))
            try await MirrorFixture.eventually("the lease was renewed past the clock's now", timeout: .seconds(10)) {
                try await message(sent.id).leaseExpiresAt.map { $0 > time.now } ?? false
            }
            #expect(try await rival.deliverDueBatch() == 0)
        }
        slow.release()
        _ = try await held.value
        // check
        #expect(other.calls == 0)
        await #expect(try message(sent.id).status == .delivered)
        await #expect(try store.outboxAttempts(messageID: sent.id).count == 1)
    }

    @Test("the dispatcher's clock decides when a retry is due: a pass a moment before the backoff ends sends nothing, one at its end delivers")
    func retryDueOnTheClock() async throws {
        let sent = try await filler.add(1, firstRecipient: 20)[0]
        try await filler.addDevices(for: [20])
        let transport = ScriptedTransport()
        transport.script([DeliveryResult(outcome: .retry, httpStatus: 503, reason: "APNs answered 503 ServiceUnavailable.")])
        let clock = TestClock<Duration>()
        let start = Date()
        let dispatcher = dispatcher(transport, clock: ServiceClock(clock, startingAt: start))
        // act 1
        #expect(try await dispatcher.deliverDueBatch() == 1)
        let waiting = try await message(sent.id)
        #expect(waiting.status == .pending)
        #expect(abs(waiting.nextAttemptAt.timeIntervalSince(start) - 5) < 0.01, "5 s: the first backoff with the jitter fixed at its middle")
        // act 2
        await clock.advance(by: .milliseconds(4_900))
        #expect(try await dispatcher.deliverDueBatch() == 0)
        await clock.advance(by: .milliseconds(100))
        #expect(try await dispatcher.deliverDueBatch() == 1)
        // check
        await #expect(try message(sent.id).status == .delivered)
        #expect(transport.calls == 2)
    }

    @Test("two dispatchers on one database never both deliver a message")
    func twoDispatchers() async throws {
        // setup
        let messages = try await filler.add(300, firstRecipient: 1_000)
        try await filler.addDevices(for: 1_000..<1_300)
        let transport = ScriptedTransport(delay: .milliseconds(1))
        let second = try ModerationStore(path: path)
        let one = dispatcher(transport, owner: "one")
        let two = OutboxDispatcher(
            store: second, transport: transport, policy: .standard, configuration: .init(batchSize: 7), logger: Logger(label: "test"), owner: "two")
        // act
        async let first: Void = { while try await one.deliverDueBatch() > 0 {} }()
        async let other: Void = { while try await two.deliverDueBatch() > 0 {} }()
        _ = try await (first, other)
        // check
        let ids = transport.delivered.map(\.messageID)
        #expect(ids.count == 300)
        #expect(Set(ids) == Set(messages.map(\.id)))
        await #expect(try store.outboxMessages(status: .delivered, limit: 1_000).count == 300)
    }

    @Test("graceful shutdown lets the message in flight finish and gives back nothing half-done")
    func gracefulShutdown() async throws {
        // setup: a slow transport, the dispatcher running as a service
        let sent = try await filler.add(1, firstRecipient: 17)[0]
        try await filler.addDevices(for: [17])
        let transport = ScriptedTransport(delay: .milliseconds(800))
        let dispatcher = dispatcher(transport)
        let group = ServiceGroup(configuration: .init(services: [dispatcher], logger: Logger(label: "test")))
        let running = Task { try await group.run() }
        // act: shut down while the message is in flight
        try await waitUntil { try await store.outboxMessage(id: sent.id)?.status == .sending }
        await group.triggerGracefulShutdown()
        try await running.value
        // check
        await #expect(try message(sent.id).status == .delivered)
        #expect(transport.delivered.count == 1)
    }

    @Test("Retry now and Discard move only failed (or no-device) messages, each with its audit entry")
    func retryAndDiscard() async throws {
        let sent = try await filler.add(2, firstRecipient: 18)
        let transport = ScriptedTransport()
        try await dispatcher(transport).deliverDueBatch()
        await #expect(try message(sent[0].id).status == .noDevice)
        // act: the recipient gets a device; Retry now
        try await filler.addDevices(for: [18])
        try await store.retryOutboxMessage(sent[0].id, audit: OutboxFiller.staffAudit("outbox.retry", messageID: sent[0].id), now: Date())
        await #expect(try message(sent[0].id).attempts == 0, "a fresh run of attempts")
        try await dispatcher(transport).deliverDueBatch()
        await #expect(try message(sent[0].id).status == .delivered)
        await #expect(try message(sent[0].id).attempts == 1)
        // a delivered message is neither retried nor discarded
        await #expect(throws: OutboxStoreError.notMovable(messageID: sent[0].id, from: .delivered)) {
            try await store.discardOutboxMessage(sent[0].id, audit: OutboxFiller.staffAudit("outbox.discard", messageID: sent[0].id), now: Date())
        }
        // a no-device message cannot be discarded (only failed ones), but stays visible
        await #expect(throws: OutboxStoreError.notMovable(messageID: sent[1].id, from: .noDevice)) {
            try await store.discardOutboxMessage(sent[1].id, audit: OutboxFiller.staffAudit("outbox.discard", messageID: sent[1].id), now: Date())
        }
        let audited = try await store.auditEntries(limit: 10).map(\.action)
        #expect(audited == ["outbox.retry"])
    }

    private func waitUntil(_ condition: () async throws -> Bool) async throws {
        for _ in 0..<200 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("condition never held")
    }
}

/// A transport whose delivery waits until the test releases it, then delivers.
private final class HeldTransport: OutboxTransport {
    let name = "held"
    private let state = Mutex((holding: false, released: false))

    var isHolding: Bool { state.withLock { $0.holding } }
    func release() { state.withLock { $0.released = true } }

    func deliver(_ delivery: OutboxDelivery) async -> [DeliveryResult] {
        state.withLock { $0.holding = true }
        while !state.withLock({ $0.released }) { try? await Task.sleep(for: .milliseconds(5)) }
        return delivery.devices.map { DeliveryResult(deviceToken: $0.token, outcome: .delivered, httpStatus: 200) }
    }

    func shutdown() async {}
}
