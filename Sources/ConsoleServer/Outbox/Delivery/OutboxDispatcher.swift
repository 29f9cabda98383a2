import Foundation
import Logging
import ModerationStore
import ServiceLifecycle
import Synchronization

/// Delivers due outbox messages, oldest first, through one transport: claims a batch (so two
/// console processes on one database never both deliver a message), applies the delivery
/// policy, sends to each recipient's active devices, and stores every attempt with the
/// message's new state in one transaction per batch. A crash leaves claimed messages to be
/// claimed again once their lease runs out, with the same `apns-id`: at least once, never lost.
public final class OutboxDispatcher: Service, Sendable {
    /// How delivery paces itself.
    public struct Configuration: Sendable {
        /// Attempts after which a message that keeps failing becomes failed (a dead letter).
        public var maxAttempts: Int
        /// Messages claimed (and in flight) at once.
        public var batchSize: Int
        /// How long a claim holds: longer than the slowest transport attempt, so that only a
        /// dead dispatcher's claims expire.
        public var leaseSeconds: TimeInterval
        /// The first retry's delay; each further one doubles it, up to `maxBackoff`.
        public var firstBackoff: TimeInterval
        public var maxBackoff: TimeInterval
        /// The longest sleep between looks at the outbox when nothing is due.
        public var idlePoll: TimeInterval

        public init(
            maxAttempts: Int = 10, batchSize: Int = 100, leaseSeconds: TimeInterval = 120, firstBackoff: TimeInterval = 5,
            maxBackoff: TimeInterval = 3600, idlePoll: TimeInterval = 0.5
        ) {
            self.maxAttempts = maxAttempts
            self.batchSize = batchSize
            self.leaseSeconds = leaseSeconds
            self.firstBackoff = firstBackoff
            self.maxBackoff = maxBackoff
            self.idlePoll = idlePoll
        }
    }

    private let store: ModerationStore
    private let transport: any OutboxTransport
    private let policy: DeliveryPolicy
    private let configuration: Configuration
    private let logger: Logger
    /// This dispatcher's name on its claims.
    let owner: String
    private let doorbell: Doorbell
    /// What "now" is for every state the dispatcher stores, and what its waits are measured on.
    private let clock: ServiceClock
    private let stopping = Atomic<Bool>(false)
    private let passes = PassMetrics(service: "outbox")
    /// The team's clock, for the times a message's reason names.
    private let clocks: TeamClockCache
    /// A number in 0..<1 for the jitter of each backoff (fixed in tests).
    private let jitter: @Sendable () -> Double

    public init(
        store: ModerationStore, transport: any OutboxTransport, policy: DeliveryPolicy, configuration: Configuration = Configuration(),
        logger: Logger, owner: String = UUID().uuidString, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        clock: ServiceClock = .system
    ) {
        self.clock = clock
        self.doorbell = Doorbell(clock: clock)
        self.clocks = TeamClockCache(store: store)
        self.store = store
        self.transport = transport
        self.policy = policy
        self.configuration = configuration
        self.logger = logger
        self.owner = owner
        self.jitter = jitter
    }

    /// Asks the dispatcher to look for due messages now.
    public func nudge() { doorbell.ring() }

    /// Delivers until a graceful shutdown, which lets the batch in flight finish (its
    /// transport's timeouts bound that) and then gives back anything still claimed.
    public func run() async throws {
        await withGracefulShutdownHandler {
            var failedPasses = 0
            while !self.stopping.load(ordering: .relaxed) && !Task.isCancelled {
                do {
                    let handled = try await self.passes.measure { try await self.deliverDueBatch() }
                    failedPasses = 0
                    if handled > 0 { continue }
                } catch {
                    failedPasses += 1
                    self.logger.error("outbox pass failed", metadata: ["error": "\(error)", "failures": "\(failedPasses)"])
                }
                await self.sleepUntilDue(afterFailedPasses: failedPasses)
            }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
            self.doorbell.ring()
        }
        do {
            let released = try await store.releaseOutboxMessages(owner: owner)
            if released > 0 { logger.info("outbox messages given back at shutdown", metadata: ["count": "\(released)"]) }
        } catch is CancellationError {
            // Stopped without a graceful shutdown: their lease runs out instead, as it is meant to.
            logger.notice("outbox messages not given back: cancelled at shutdown, their lease runs out instead")
        } catch {
            // Their lease runs out instead, and the next dispatcher takes them.
            logger.error("outbox messages not given back at shutdown", metadata: ["error": "\(error)"])
        }
        await transport.shutdown()
    }

    /// Claims and settles one batch of due messages; answers how many it handled (`run` calls it
    /// in a loop; benchmarks call it directly).
    @discardableResult
    public func deliverDueBatch(now: Date? = nil) async throws -> Int {
        let now = now ?? clock.now
        let claimed = try await store.claimDueOutboxMessages(
            owner: owner, limit: configuration.batchSize, leaseUntil: now.addingTimeInterval(configuration.leaseSeconds), now: now)
        guard !claimed.isEmpty else { return 0 }
        // On the team's clock (read only for a batch): the times a message's last reason names are read on its page.
        return try await TeamClock.$current.withValue(await clocks.clock()) {
            try await settle(claimed, now: now)
        }
    }

    /// Delivers a claimed batch and stores what became of each message.
    private func settle(_ claimed: [OutboxMessage], now: Date) async throws -> Int {
        // A batch held up by a slow receiver keeps its claims: only a dead dispatcher's expire.
        let heartbeat = renewingLeases(of: claimed.map(\.id))
        defer { heartbeat.cancel() }
        let devices = try await store.deliverableDevices(userIDs: Set(claimed.map(\.recipientUserId)))
        // Every message, not only those tried before by this run of attempts: a Retry now starts
        // the count again, and the devices an earlier run reached must not have it twice.
        let reached = try await store.deliveredDeviceTokens(messageIDs: claimed.map(\.id))
        let settlements = await withTaskGroup(of: OutboxSettlement.self) { group in
            for message in claimed {
                let remaining = (devices[message.recipientUserId] ?? []).filter { !(reached[message.id] ?? []).contains($0.token) }
                let alreadyReached = !(reached[message.id] ?? []).isEmpty
                group.addTask { await self.settle(message, devices: remaining, alreadyReached: alreadyReached) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // In a task of its own: a shutdown whose grace runs out cancels this one, and a cancelled
        // write is rolled back, but what APNs accepted must be recorded, or it is pushed again.
        let lost = try await Task { [store, owner, clock] in try await store.settleOutboxMessages(settlements, owner: owner, now: clock.now) }.value
        for id in lost { logger.warning("outbox claim lost; another dispatcher's outcome stands", metadata: ["outbox.id": "\(id)"]) }
        return claimed.count
    }

    private func renewingLeases(of ids: [String]) -> Task<Void, Never> {
        Task { [store, owner, configuration, logger, clock] in
            while !Task.isCancelled {
                await clock.pause(seconds: configuration.leaseSeconds / 3)
                guard !Task.isCancelled else { return }
                do {
                    try await store.renewOutboxLeases(ids, owner: owner, until: clock.now.addingTimeInterval(configuration.leaseSeconds))
                } catch is CancellationError {
                    return  // the batch ended while a renewal waited for the database
                } catch {
                    logger.warning("outbox leases not renewed", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// What one claimed message comes to.
    private func settle(_ message: OutboxMessage, devices: [Device], alreadyReached: Bool) async -> OutboxSettlement {
        let now = clock.now
        if policy.recordsOnly(message) {
            return OutboxSettlement(messageID: message.id, state: .recordedOnly, reason: "Book Corners sends this itself.", attempts: [])
        }
        if let expiresAt = message.expiresAt, expiresAt <= now {
            return OutboxSettlement(
                messageID: message.id, state: .failed, reason: "Expired at \(TeamClock.stamp(expiresAt)) before it could be delivered.", attempts: [])
        }
        if devices.isEmpty {
            // Every device a retry would go to was reached before (the others are gone since).
            return alreadyReached
                ? OutboxSettlement(messageID: message.id, state: .delivered, reason: "", attempts: [])
                : OutboxSettlement(messageID: message.id, state: .noDevice, reason: "The recipient has no active device token.", attempts: [])
        }
        let results = await transport.deliver(OutboxDelivery(message: message, headers: Self.headers(of: message), devices: devices))
        let attempts = results.map {
            OutboxAttempt(
                messageId: message.id, deviceToken: $0.deviceToken, transport: transport.name, httpStatus: $0.httpStatus, outcome: $0.outcome,
                reason: $0.reason, attemptedAt: clock.now)
        }
        let environments = Dictionary(devices.map { ($0.token, $0.environment) }, uniquingKeysWith: { first, _ in first })
        return OutboxSettlement(
            messageID: message.id, attempts: attempts,
            outcome: outcome(of: message, results: results, alreadyReached: alreadyReached, now: clock.now),
            deviceReports: results.compactMap { Self.report(of: $0, environment: environments[$0.deviceToken], at: now) })
    }

    /// What APNs' answer says about the token, in the environment it was pushed in.
    private static func report(of result: DeliveryResult, environment: Device.Environment?, at now: Date) -> DeviceReport? {
        guard !result.deviceToken.isEmpty else { return nil }
        let finding: DeviceReport.Finding
        switch result.outcome {
        case .delivered: finding = .delivered
        case .deviceDisabled where result.httpStatus == 400: finding = .badDeviceToken
        case .deviceDisabled: finding = .unregistered(since: result.invalidSince ?? now)
        case .retry, .failed: return nil
        }
        return DeviceReport(token: result.deviceToken, environment: environment, finding: finding, reason: result.reason, at: now)
    }

    /// A transport's words as a sentence: a capital first (unless it follows a colon) and a full stop.
    private static func sentence(_ words: String, capitalised: Bool = true) -> String {
        let stopped = words.hasSuffix(".") || words.isEmpty ? words : words + "."
        return capitalised ? stopped.prefix(1).uppercased() + stopped.dropFirst() : stopped
    }

    /// The message's next state from its devices' results, judged as a whole: again later
    /// while any device may still take it (until attempts run out); delivered once every device
    /// took it, is gone, or refused it for good while another took it; failed when none took it
    /// and one refused it for good; no device when every token turned out to be gone.
    private func outcome(of message: OutboxMessage, results: [DeliveryResult], alreadyReached: Bool, now: Date) -> (OutboxMessage.State, String, Date?) {
        let failures = results.filter { $0.outcome == .failed }
        if let retry = results.first(where: { $0.outcome == .retry }) {
            guard message.attempts < configuration.maxAttempts else {
                // Said once, and true: nothing tries it again unless staff press Retry now.
                return (
                    .failed,
                    "Gave up after \(message.attempts) attempts; the last: \(Self.sentence(retry.reason, capitalised: false)) It is not tried again unless someone retries it.",
                    nil
                )
            }
            let next = now.addingTimeInterval(max(backoff(afterAttempt: message.attempts), retryAfter(in: results)))
            return (.pending, "\(Self.sentence(retry.reason)) It will be tried again at \(TeamClock.stamp(next)).", next)
        }
        if alreadyReached || results.contains(where: { $0.outcome == .delivered }) {
            return (.delivered, failures.first.map { "Not every device took it: \($0.reason)" } ?? "", nil)
        }
        if let failure = failures.first {
            return (.failed, failure.reason, nil)
        }
        let why = results.map(\.reason).first(where: { !$0.isEmpty }) ?? "refused"
        return (.noDevice, "Every device token was refused (\(why)); they are disabled.", nil)
    }

    /// The longest wait the other side asked for, within reason: a `Retry-After` of years (or
    /// not a number) must not park a message beyond the longest backoff.
    private func retryAfter(in results: [DeliveryResult]) -> TimeInterval {
        let asked = results.compactMap(\.retryAfter).filter { $0.isFinite && $0 > 0 }.max() ?? 0
        return min(asked, configuration.maxBackoff)
    }

    /// Exponential, with jitter so that messages failing together do not retry together.
    func backoff(afterAttempt attempt: Int) -> TimeInterval {
        let base = min(configuration.maxBackoff, configuration.firstBackoff * pow(2, Double(max(0, attempt - 1))))
        return min(configuration.maxBackoff, base * (0.5 + jitter()))
    }

    private func sleepUntilDue(afterFailedPasses failures: Int) async {
        if failures > 0 {
            await doorbell.wait(atMost: .milliseconds(Int(min(30, 0.5 * pow(2, Double(min(failures, 10)))) * 1000)))
            return
        }
        let next = await (try? store.nextOutboxDueDate()) ?? nil
        let wait = min(max((next ?? .distantFuture).timeIntervalSince(clock.now), 0.05), configuration.idlePoll)
        await doorbell.wait(atMost: .milliseconds(Int(wait * 1000)))
    }

    /// The stored headers; the message id is the `apns-id` whatever they say.
    static func headers(of message: OutboxMessage) -> [String: String] {
        var headers = (try? JSONDecoder().decode([String: String].self, from: Data(message.headers.utf8))) ?? [:]
        headers["apns-id"] = message.id
        return headers
    }
}

extension OutboxSettlement {
    fileprivate init(messageID: String, attempts: [OutboxAttempt], outcome: (OutboxMessage.State, String, Date?), deviceReports: [DeviceReport]) {
        self.init(messageID: messageID, state: outcome.0, reason: outcome.1, attempts: attempts, nextAttemptAt: outcome.2, deviceReports: deviceReports)
    }
}
