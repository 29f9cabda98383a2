import BookCornersAPI
import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// A queue watcher against a real sandbox over HTTP, on a temporary store with a rotation of
/// alice, bob and carol (one-day shifts from the clock's UTC day, so alice is on call), its
/// clock moved by hand and `tick()` called by the test.
struct WatcherFixture: Sendable {
    let sandbox: SandboxFixture
    let store: ModerationStore
    let client: BackendClient
    let credentials: StaffCredentials
    let clock: MovableWallClock
    let watcher: QueueWatcher
    let requestLogPath: String

    static let alice = StaffMember(id: 901, username: "alice")
    static let bob = StaffMember(id: 902, username: "bob")
    static let carol = StaffMember(id: 903, username: "carol")

    /// Runs a fresh sandbox (rate limits off: the test counts reads itself) and a watcher whose clock starts at `start`.
    static func run(
        start: @escaping @Sendable (SandboxFixture, BackendClient, StaffCredentials) async throws -> Date,
        configuration: OnCallWatcherConfiguration = OnCallWatcherConfiguration(),
        _ body: @Sendable (WatcherFixture) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logPath = directory.path("requests.ndjson")
        try await SandboxFixture.run(rateLimits: nil, requestLogPath: logPath) { sandbox in
            let client = BackendClient(configuration: .init(baseURL: sandbox.baseURL, readRetry: .none), logger: ConsoleFixture.quietLogger)
            try await BackendClient.closing(client) { client in
                let tokens = try await client.signIn(username: SeedAccounts.demoStaffUsername, password: SeedAccounts.demoStaffPassword)
                let credentials = StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
                // Ticks move the clock by whole minutes: started (later by under a minute) at half past a minute, no look lands in
                // a budget window's last second, where the watcher's claim is refused and the look skipped.
                let begin = try await start(sandbox, client, credentials).timeIntervalSince1970
                let clock = MovableWallClock(
                    Date(timeIntervalSince1970: begin + (90 - begin.truncatingRemainder(dividingBy: 60)).truncatingRemainder(dividingBy: 60)))
                let store = try ModerationStore(path: directory.path("console.sqlite"))
                try await setUpRotation(store, from: clock.now)
                let source = QueueAgeSource(
                    store: store, client: client, credentials: { _ in ("test-session", credentials) }, mirrorIsOn: false,
                    configuration: configuration,
                    budget: BackendBudget(
                        store: store, limits: BackendLimits(windowSeconds: configuration.windowSeconds, reads: configuration.backendLimit),
                        mirrorPolicy: ReadPlanner.Policy(windowSeconds: configuration.windowSeconds, backendLimit: configuration.backendLimit),
                        watcherBudget: configuration.budget, logger: ConsoleFixture.quietLogger),
                    logger: ConsoleFixture.quietLogger)
                let watcher = QueueWatcher(
                    store: store, source: source, configuration: configuration, bundleID: "org.bookcorners.app", nudge: {},
                    now: { clock.now }, logger: ConsoleFixture.quietLogger)
                try await body(
                    WatcherFixture(
                        sandbox: sandbox, store: store, client: client, credentials: credentials, clock: clock, watcher: watcher,
                        requestLogPath: logPath))
            }
        }
    }

    private static func setUpRotation(_ store: ModerationStore, from now: Date) async throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        for member in [alice, bob, carol] { try await store.recordStaffMember(member, signedInAt: nil, now: now) }
        let rotation = try Rotation(
            members: [alice, bob, carol], shiftDays: 1, handoff: try #require(LocalTime("00:00")), timeZone: utc,
            startDate: LocalDate(now, in: utc))
        try await store.saveRotation(rotation, audit: audit("rotation.update", now: now), now: now)
    }

    static func audit(_ action: String, by staff: StaffMember = alice, now: Date) -> AuditEntry {
        AuditEntry(
            recordedAt: now, actorId: staff.id, actorUsername: staff.username, action: action, targetKind: "onCall", targetId: "",
            targetSlug: "", targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil,
            requestId: "test", clientAddress: "127.0.0.1", userAgent: "test", itemCreatedAt: nil, actionId: nil)
    }

    /// The open reports' creation dates, oldest first.
    static func openReportDates(_ client: BackendClient, _ credentials: StaffCredentials) async throws -> [(id: Int, createdAt: Date)] {
        let list = try await client.reports(status: .open, page: BookCornersAPI.Page(number: 1, size: 50), credentials: credentials)
        return list.items.map { ($0.id, $0.createdAt) }.sorted { $0.createdAt < $1.createdAt }
    }

    /// The reports queue's episode not closed, if any.
    func reportsEpisode() async throws -> QueueAlert? {
        try await store.activeQueueAlerts().first { $0.queue == .reports }
    }

    /// The messages of one episode, oldest first.
    func messages(of alert: QueueAlert) async throws -> [OutboxMessage] {
        try await store.outboxMessages(eventType: .queueOverdue, limit: 1_000)
            .filter { $0.dedupeKey?.hasPrefix("alert-\(alert.id)-") == true }
            .sorted { ($0.createdAt, $0.dedupeKey ?? "") < ($1.createdAt, $1.dedupeKey ?? "") }
    }

    /// Moves the clock by `minutes` and lets the watcher look.
    func tick(after minutes: Double = 0) async {
        clock.advance(by: minutes * 60)
        await watcher.tick()
    }

    /// The request log's lines so far: (scope, kind).
    func loggedRequests() throws -> [(scope: String, kind: String)] {
        guard let data = FileManager.default.contents(atPath: requestLogPath) else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let scope = object?["scope"] as? String, let kind = object?["kind"] as? String else { return nil }
            return (scope, kind)
        }
    }
}
