import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Fills the mirror: on every tick it asks the `ReadPlanner` which reads each scope may
/// make now and makes them with the most recently active staff member's tokens (nobody
/// signed in: it waits). Reads are upserted by id; a full pass's cursor and the reads
/// spent are stored after every read, so a restart resumes without duplicates or
/// overspending. A failed read changes nothing and is tried again later; a library a pass
/// did not list is called gone only after a detail read answers 404.
actor MirrorSync: Service {
    private let store: ModerationStore
    private let client: BackendClient
    private let sessions: SessionManager
    private let configuration: MirrorConfiguration
    private let now: @Sendable () -> Date
    private let logger: Logger
    private var planner: ReadPlanner
    private var restored = false
    /// Sessions whose tokens the backend refused: not asked again by this process.
    private var refusedSessions: Set<String> = []
    private var sweeps: [MirrorScope: PendingSweep] = [:]
    /// Slugs of libraries a read of the pending queue should have listed and did not: each
    /// is read alone to learn its new status (or that it is gone).
    private var libraryChecks: [String] = []

    /// Reading a queue's pages after the first, so every waiting item is confirmed in time.
    private struct PendingSweep {
        /// The next page to read; `nil` between sweeps.
        var nextPage: Int?
        var lastStartedAt: Date?
        /// Pages in the queue, as its last read said.
        var totalPages = 1
    }

    init(
        store: ModerationStore, client: BackendClient, sessions: SessionManager, configuration: MirrorConfiguration,
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.store = store
        self.client = client
        self.sessions = sessions
        self.configuration = configuration
        self.now = now
        self.logger = logger
        self.planner = ReadPlanner(policy: configuration.policy)
    }

    func run() async throws {
        let passes = PassMetrics(service: "mirror")
        await repeatUntilShutdown(every: .milliseconds(Int(configuration.tickInterval * 1000))) {
            _ = try? await passes.measure { await self.tick() }
        }
    }

    /// One read from the share kept for the check before a decision; the action runner asks
    /// before it re-reads an item, and waits as for a 429 when refused.
    func reserveDecisionCheck(_ scope: MirrorScope) -> ReadGrant {
        restoreOnce()
        let at = now()
        let grant = planner.reserveDecisionCheck(scope, at: at)
        if grant == .granted { saveSpending(scope, at: at) }
        return grant
    }

    /// Makes every read that is due and within budget now.
    func tick() async {
        restoreOnce()
        for scope in MirrorScope.allCases {
            while let purpose = planner.next(scope, wanted: wanted(scope), at: now()) {
                guard let signedIn = await currentCredentials() else { return }
                let started = now()
                guard planner.request(scope, for: purpose, at: started) == .granted else { break }
                saveSpending(scope, at: started)
                do {
                    try await read(scope, purpose, credentials: signedIn.credentials, startedAt: started)
                    noteAnswer(true)
                } catch .rateLimited(let seconds) {
                    noteAnswer(true)
                    // Another client at our address spent the budget: wait as long as the backend says.
                    planner.pause(scope, until: now().addingTimeInterval(Double(max(1, seconds))), at: now())
                    saveSpending(scope, at: now())
                    logger.notice("mirror read limited by the backend", metadata: ["scope": "\(scope.rawValue)", "retry_after": "\(seconds)"])
                    break
                } catch .sessionExpired {
                    noteAnswer(true)
                    refusedSessions.insert(signedIn.sessionID)
                    break
                } catch {
                    noteAnswer(!error.meansNoAnswer)
                    // Down or answering nonsense: nothing is changed; the read is tried again on a later tick.
                    logger.warning("mirror read failed", metadata: ["scope": "\(scope.rawValue)", "error": "\(error)"])
                    break
                }
            }
        }
    }

    // MARK: What each scope wants

    private func wanted(_ scope: MirrorScope) -> Set<ReadPurpose> {
        switch scope {
        case .libraryList, .reportList, .photoList:
            var purposes: Set<ReadPurpose> = [.queueFront]
            if isSweepDue(scope) { purposes.insert(.pendingItems) }
            if isPassDue(scope) { purposes.insert(.fullPass) }
            return purposes
        case .summary:
            return [.queueFront]
        case .statistics:
            guard let last = (try? store.mirrorStatistics())?.lastConfirmedAt else { return [.fullPass] }
            return now().timeIntervalSince(last) >= configuration.statisticsInterval ? [.fullPass] : []
        case .libraryDetail:
            var purposes: Set<ReadPurpose> = libraryChecks.isEmpty ? [] : [.pendingItems]
            if (try? nextMissingLibrary()) != nil { purposes.insert(.fullPass) }
            return purposes
        case .publicLibraryList:
            return []
        }
    }

    /// A pass under way goes on; a new one waits `passInterval` after the last one began.
    private func isPassDue(_ scope: MirrorScope) -> Bool {
        guard let state = try? store.mirrorScopeState(scope) else { return false }
        if state.passStartedAt != nil { return true }
        guard let last = state.lastCompletePassStartedAt else { return true }
        return now().timeIntervalSince(last) >= configuration.passInterval
    }

    private func isSweepDue(_ scope: MirrorScope) -> Bool {
        let sweep = sweeps[scope] ?? PendingSweep()
        if sweep.nextPage != nil { return true }
        guard sweep.totalPages > 1 else { return false }
        return sweep.lastStartedAt.map { now().timeIntervalSince($0) >= configuration.policy.pendingItemInterval } ?? true
    }

    private func nextMissingLibrary() throws -> (library: MirrorLibrary, passStart: Date)? {
        guard let passStart = try store.mirrorScopeState(.libraryList).lastCompletePassStartedAt,
            let library = try store.librariesMissing(fromPassStartedAt: passStart, limit: 1).first
        else { return nil }
        return (library, passStart)
    }

    // MARK: Reads

    private func read(
        _ scope: MirrorScope, _ purpose: ReadPurpose, credentials: StaffCredentials, startedAt: Date
    ) async throws(BackendError) {
        switch (scope, purpose) {
        case (.summary, _):
            let summary = try await client.summary(credentials)
            saving { try store.saveMirror(summary: MirrorSummary(summary, confirmedAt: startedAt)) }
        case (.statistics, _):
            let statistics = try await client.statistics()
            saving {
                let json = try BackendJSON.encoder().encode(statistics)
                try store.saveMirror(statistics: MirrorStatistics(json: json, lastConfirmedAt: startedAt))
            }
        case (.libraryDetail, .pendingItems):
            try await checkLeftQueue(credentials: credentials, startedAt: startedAt)
        case (.libraryDetail, _):
            try await confirmMissingLibrary(credentials: credentials, startedAt: startedAt)
        case (.libraryList, _), (.reportList, _), (.photoList, _):
            try await readList(scope, purpose, credentials: credentials, startedAt: startedAt)
        case (.publicLibraryList, _):
            break
        }
    }

    /// One page of a list: the queue's first page, the queue's next page, or the pass's next page.
    private func readList(
        _ scope: MirrorScope, _ purpose: ReadPurpose, credentials: StaffCredentials, startedAt: Date
    ) async throws(BackendError) {
        var state = (try? store.mirrorScopeState(scope)) ?? MirrorScopeState(scope: scope)
        let pageNumber: Int
        let queueOnly: Bool
        switch purpose {
        case .queueFront:
            pageNumber = 1
            queueOnly = true
        case .pendingItems:
            var sweep = sweeps[scope] ?? PendingSweep()
            if sweep.nextPage == nil {
                sweep.nextPage = 2
                sweep.lastStartedAt = startedAt
            }
            sweeps[scope] = sweep
            pageNumber = sweep.nextPage ?? 2
            queueOnly = true
        case .fullPass, .decisionCheck:
            if state.passNextPage <= 1 || state.passStartedAt == nil {
                state.passNextPage = 1
                state.passStartedAt = startedAt
            }
            pageNumber = state.passNextPage
            queueOnly = false
        }
        let page = Page(clampingNumber: pageNumber, size: configuration.pageSize)
        let pagination = try await fetchAndStore(scope, queueOnly: queueOnly, page: page, credentials: credentials, startedAt: startedAt)
        // A page past the last answers the last one: the page number it carries says where we are.
        let isLast = pagination.page >= pagination.totalPages || !pagination.hasNext
        if queueOnly {
            var sweep = sweeps[scope] ?? PendingSweep()
            sweep.totalPages = pagination.totalPages
            if purpose == .pendingItems { sweep.nextPage = isLast ? nil : pagination.page + 1 }
            sweeps[scope] = sweep
            return
        }
        if isLast {
            if let start = state.passStartedAt {
                state.lastCompletePassStartedAt = start
                saving {
                    switch scope {
                    case .reportList: _ = try store.completeReportPass(startedAt: start, at: now())
                    case .photoList: _ = try store.completePhotoPass(startedAt: start, at: now())
                    default: break
                    }
                }
            }
            state.passNextPage = 1
            state.passStartedAt = nil
            state.lastPassCompletedAt = now()
        } else {
            state.passNextPage = pagination.page + 1
        }
        saveScopeState(state)
    }

    private func fetchAndStore(
        _ scope: MirrorScope, queueOnly: Bool, page: Page, credentials: StaffCredentials, startedAt: Date
    ) async throws(BackendError) -> Pagination {
        switch scope {
        case .reportList:
            let list = try await client.reports(status: queueOnly ? .open : .all, page: page, credentials: credentials)
            saving { try store.upsertMirror(reports: convert(list.items) { try MirrorReport($0, confirmedAt: startedAt) }, at: now()) }
            return list.pagination
        case .photoList:
            let list = try await client.photos(status: queueOnly ? .pending : .all, page: page, credentials: credentials)
            saving { try store.upsertMirror(photos: convert(list.items) { try MirrorPhoto($0, confirmedAt: startedAt) }, at: now()) }
            return list.pagination
        default:
            let list = try await client.libraries(LibraryFilter(status: queueOnly ? .pending : .all), page: page, credentials: credentials)
            saving { try store.upsertMirror(libraries: convert(list.items) { try MirrorLibrary($0, confirmedAt: startedAt) }, at: now()) }
            if queueOnly { noteLeftQueue(list) }
            return list.pagination
        }
    }

    /// Pending libraries the mirror has in the range a page of the pending queue covers, but
    /// the page did not list: decided or deleted since. Each gets a detail read.
    private func noteLeftQueue(_ list: PagedList<ModerationLibrary>) {
        let newest = list.pagination.page == 1 ? nil : list.items.first?.createdAt
        let oldest = list.pagination.hasNext ? list.items.last?.createdAt : nil
        let listed = Set(list.items.map(\.id))
        saving {
            for library in try store.mirroredLibraries(status: .pending, createdFrom: oldest, through: newest)
            where !listed.contains(library.id) && !libraryChecks.contains(library.slug) {
                libraryChecks.append(library.slug)
            }
        }
    }

    /// Reads the first library that left the pending queue: its new status, or a 404 (gone).
    private func checkLeftQueue(credentials: StaffCredentials, startedAt: Date) async throws(BackendError) {
        guard let slug = libraryChecks.first else { return }
        do {
            let library = try await client.library(slug: slug, credentials: credentials)
            saving { try store.upsertMirror(libraries: convert([library]) { try MirrorLibrary($0, confirmedAt: startedAt) }, at: now()) }
        } catch .notFound {
            saving {
                if let known = try store.mirroredLibrary(slug: slug) {
                    try store.markLibraryGone(id: known.id, checkedSince: startedAt, at: now())
                }
            }
        }
        libraryChecks.removeAll { $0 == slug }
    }

    /// A library the last complete pass did not list: read it alone; only a 404 makes it gone.
    private func confirmMissingLibrary(credentials: StaffCredentials, startedAt: Date) async throws(BackendError) {
        guard let missing = (try? nextMissingLibrary())?.library else { return }
        do {
            let library = try await client.library(slug: missing.slug, credentials: credentials)
            saving { try store.upsertMirror(libraries: convert([library]) { try MirrorLibrary($0, confirmedAt: startedAt) }, at: now()) }
        } catch .notFound {
            saving { try store.markLibraryGone(id: missing.id, checkedSince: startedAt, at: now()) }
        }
    }

    // MARK: Helpers

    /// Items whose status the console does not know are left out, and said so in the log.
    private func convert<Item, Row>(_ items: [Item], _ make: (Item) throws -> Row) -> [Row] {
        items.compactMap { item in
            do {
                return try make(item)
            } catch let unknown as UnknownStatusError {
                logger.error("backend item with an unknown status not mirrored", metadata: [
                    "kind": "\(unknown.kind)", "id": "\(unknown.id)", "status": "\(unknown.status)",
                ])
            } catch {
                logger.error("backend item not mirrored", metadata: ["error": "\(error)"])
            }
            return nil
        }
    }

    /// Runs a store write; a failure is logged (the database is ours: nothing a retry of the read would fix).
    private func saving(_ write: () throws -> Void) {
        do {
            try write()
        } catch {
            logger.error("mirror could not store a read", metadata: ["error": "\(error)"])
        }
    }

    /// The most recently active staff member's credentials; `nil` when nobody is signed in.
    private func currentCredentials() async -> (sessionID: String, credentials: StaffCredentials)? {
        do {
            return try await sessions.credentialsOfMostRecentSession(excluding: refusedSessions, now: now())
        } catch {
            logger.error("mirror could not look up a session", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Keeps when the backend last answered, for pages to say "has not answered since".
    private func noteAnswer(_ answered: Bool) {
        saving { answered ? try store.noteMirrorAnswered(at: now()) : try store.noteMirrorUnanswered(at: now()) }
    }

    private func saveSpending(_ scope: MirrorScope, at: Date) {
        var state = (try? store.mirrorScopeState(scope)) ?? MirrorScopeState(scope: scope)
        let spending = planner.spendingState(scope, at: at)
        state.windowIndex = spending.windowIndex
        state.readsSpent = spending.spent
        state.decisionReadsSpent = spending.decisionSpent
        state.pausedUntil = spending.pausedUntil
        saveScopeState(state)
    }

    private func saveScopeState(_ state: MirrorScopeState) {
        saving { try store.saveMirrorScopeState(state) }
    }

    private func restoreOnce() {
        guard !restored else { return }
        restored = true
        for scope in MirrorScope.allCases {
            if let state = try? store.mirrorScopeState(scope) { planner.restore(state) }
        }
    }
}
