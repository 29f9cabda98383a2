import BookCornersAPI
import Foundation
import ModerationStore
import TestSupport

@testable import ConsoleServer

/// Whether a console under test starts with its mirror filled.
enum MirrorStart: Sendable {
    /// The first staff sign-in fills the mirror once before `signIn` returns: pages have data
    /// right after sign-in, as they had when they read the backend.
    case filled
    /// Nothing fills it: the console as on its first start.
    case empty
}

/// Fills a console's mirror once through `MirrorSync`'s own reads, with the most recently
/// active staff session, straight from the sandbox (not through a counting proxy, so tests
/// that count the console's calls count only their own). Its rhythm is an hour: after the
/// first fill it reads nothing more.
final class MirrorFiller: Sendable {
    private let sync: MirrorSync
    private let client: BackendClient
    private let store: ModerationStore
    private let sessions: StaffSessions

    /// `directory` holds the console's database and key file (the console must have started).
    convenience init(directory: TemporaryDirectory, backendURL: URL) throws {
        try self.init(databasePath: directory.path("console.sqlite"), backendURL: backendURL)
    }

    /// The console's database at `databasePath`, its key file `console.key` beside it.
    init(databasePath: String, backendURL: URL) throws {
        store = try ModerationStore(path: databasePath)
        let keyFile = URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("console.key").path
        let sealer = try TokenSealer.load(base64Key: nil, keyFile: keyFile)
        let logger = ConsoleFixture.quietLogger
        sessions = StaffSessions(store: store, sealer: sealer, idleTimeout: 30 * 60, lifetime: 12 * 3600, logger: logger)
        client = BackendClient(configuration: .init(baseURL: backendURL, readRetry: .none), logger: logger)
        let configuration = MirrorFixture.mirror(
            window: 300, reads: 100_000, firstPageInterval: 3600, pendingItemInterval: 3600, passInterval: 3600)
        let budget = BackendBudget(
            store: store, limits: BackendLimits(windowSeconds: 300, reads: 100_000), mirrorPolicy: configuration.policy, watcherBudget: 0,
            logger: logger)
        sync = MirrorSync(store: store, client: client, sessions: sessions, configuration: configuration, budget: budget, logger: logger)
    }

    /// Ticks the sync until every list's pass is complete and the summary and statistics are
    /// read: one tick does it all, unless it starts in the last second of a backend window (the
    /// planner starts no read there), so it may take a second tick. Gives up after 60 s (a loaded machine).
    func fill() async {
        // Nobody on staff signed in (a refused sign-in): the sync has no tokens to read with.
        guard (try? await sessions.credentialsOfMostRecentSession(excluding: [], now: Date())) != nil else { return }
        let deadline = ContinuousClock.now + .seconds(60)
        repeat {
            await sync.tick()
            if await isFilled() { break }
            try? await Task.sleep(for: .milliseconds(100))
        } while ContinuousClock.now < deadline
        // Its lease is given up when it is done, so a console's own mirror may read at once.
        await sync.stepAside()
    }

    private func isFilled() async -> Bool {
        let scopes: [MirrorScope] = [.libraryList, .reportList, .photoList]
        for scope in scopes where (try? await store.mirrorScopeState(scope).lastPassCompletedAt) == nil { return false }
        let summary = try? await store.mirrorSummary()
        let statistics = try? await store.mirrorStatistics()
        return summary != nil && statistics != nil
    }

    func shutdown() async throws {
        try await client.shutdown()
    }
}
