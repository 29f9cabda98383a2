import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// Fills the mirror: on every tick it asks the `ReadPlanner` which reads each scope may
/// make now and makes them with the most recently active staff member's tokens (nobody
/// signed in: it waits). Every read is claimed from the database's `BackendBudget`, which
/// every console process on the database spends together, and only the process holding the
/// mirror's lease reads at all, so two processes neither spend the budget twice nor run two
/// passes. Reads are upserted by id; a full pass's cursor is stored after every read, only
/// if it is still where this process read it from, so a restart resumes without duplicates
/// and no process rewinds another's pass. A failed read changes nothing and is tried again
/// later; an item a pass did not list is called gone only after a read that would have shown
/// it did not (a library's detail read answering 404; for reports and photos, the page of
/// their list, under every status, where it would stand).
actor MirrorSync: Service {
    private let store: ModerationStore
    private let client: BackendClient
    private let sessions: StaffSessions
    private let configuration: MirrorConfiguration
    private let budget: BackendBudget
    private let now: @Sendable () -> Date
    private let logger: Logger
    private var planner: ReadPlanner
    /// This process's name on the mirror's lease.
    private let owner = UUID().uuidString
    /// Items a complete pass did not list, by id: the page to look for each on next, once a
    /// read said it stands before or after the page read, and which of the two it said.
    private var confirmationPages: [MirrorScope: [Int: (page: Int, moved: MissingItemPlace)]] = [:]
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
        store: ModerationStore, client: BackendClient, sessions: StaffSessions, configuration: MirrorConfiguration,
        budget: BackendBudget, now: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) {
        self.store = store
        self.client = client
        self.sessions = sessions
        self.configuration = configuration
        self.budget = budget
        self.now = now
        self.logger = logger
        self.planner = ReadPlanner(policy: configuration.policy)
    }

    func run() async throws {
        let passes = PassMetrics(service: "mirror")
        await repeatUntilShutdown(every: .milliseconds(Int(configuration.tickInterval * 1000))) {
            _ = try? await passes.measure { await self.tick() }
        }
        // Another process need not wait for the lease to run out.
        await stepAside()
    }

    /// Gives the mirror's lease up at once, so another process (or sync) reads from now on.
    func stepAside() async {
        try? await store.releaseWorkLease(Self.leaseName, owner: owner)
    }

    /// One read from the share kept for the check before a decision; the action runner asks
    /// before it re-reads an item, and waits as for a 429 when refused. Counted in the
    /// database, whichever process asks.
    func reserveDecisionCheck(_ scope: MirrorScope) async -> ReadGrant {
        await budget.reserveDecisionCheck(scope, at: now())
    }

    /// Each read's context: its first attempt was granted by `claimMirror`; any other (the
    /// re-send after a token refresh) is claimed from the mirror's share too.
    private var mirrorCall: CallContext { CallContext(budget: BackendBudget.mirrorCall) }

    /// The lease's name: one process at a time reads for the mirror.
    static let leaseName = "mirror"

    /// How long the lease holds unrenewed: longer than one read with a token refresh, so the
    /// holder keeps it between renewals; a process that died leaves the mirror to another after it.
    private var leaseSeconds: TimeInterval { max(30, 3 * configuration.tickInterval) }

    /// Takes or renews the mirror's lease; false while another process holds it.
    private func holdLease() async -> Bool {
        let at = now()
        do {
            return try await store.holdWorkLease(Self.leaseName, owner: owner, until: at.addingTimeInterval(leaseSeconds), now: at)
        } catch is CancellationError {
            return false  // shutting down
        } catch {
            logger.error("mirror could not take its lease", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// Brings the planner up to what every process has spent in `scope` this window.
    private func observeSpending(_ scope: MirrorScope) async {
        let at = now()
        let spending = await budget.mirrorSpending(scope, at: at)
        await planner.observe(
            scope, spent: spending.spent, decisionSpent: spending.reserveSpent, pausedUntil: budget.pausedUntil(scope.rawValue, at: at), at: at)
    }

    /// Makes every read that is due and within budget now, if this process holds the lease.
    func tick() async {
        guard await holdLease() else { return }
        for scope in MirrorScope.allCases {
            while true {
                await observeSpending(scope)
                guard let purpose = await planner.next(scope, wanted: wanted(scope), at: now()) else { break }
                guard let signedIn = await currentCredentials(), await holdLease() else { return }
                let started = now()
                let headroom = planner.headroom(scope, for: purpose, at: started)
                guard planner.request(scope, for: purpose, at: started) == .granted,
                    await budget.claimMirror(scope, headroom: headroom, at: started) == .granted
                else { break }
                do {
                    try await read(scope, purpose, credentials: signedIn.credentials, startedAt: started)
                    await noteAnswer(true)
                } catch .rateLimited(let seconds) {
                    await noteAnswer(true)
                    // Another client at our address spent the budget: wait as long as the backend says
                    // (the client stored the pause for every process).
                    planner.pause(scope, until: now().addingTimeInterval(Double(max(1, seconds))), at: now())
                    logger.notice("mirror read limited by the backend", metadata: ["scope": "\(scope.rawValue)", "retry_after": "\(seconds)"])
                    break
                } catch .sessionExpired {
                    await noteAnswer(true)
                    refusedSessions.insert(signedIn.sessionID)
                    break
                } catch {
                    await noteAnswer(!error.meansNoAnswer)
                    // Down or answering nonsense: nothing is changed; the read is tried again on a later tick.
                    logger.warning("mirror read failed", metadata: ["scope": "\(scope.rawValue)", "error": "\(error)"])
                    break
                }
            }
        }
    }

    // MARK: What each scope wants

    private func wanted(_ scope: MirrorScope) async -> Set<ReadPurpose> {
        switch scope {
        case .libraryList, .reportList, .photoList:
            var purposes: Set<ReadPurpose> = [.queueFront]
            if isSweepDue(scope) { purposes.insert(.pendingItems) }
            let missing = try? await nextMissingItem(scope)
            if await isPassDue(scope) || missing != nil { purposes.insert(.fullPass) }
            return purposes
        case .summary:
            return [.queueFront]
        case .statistics:
            guard let last = await (try? store.mirrorStatistics())?.lastConfirmedAt else { return [.fullPass] }
            return now().timeIntervalSince(last) >= configuration.statisticsInterval ? [.fullPass] : []
        case .libraryDetail:
            var purposes: Set<ReadPurpose> = libraryChecks.isEmpty ? [] : [.pendingItems]
            if await (try? nextMissingLibrary()) != nil { purposes.insert(.fullPass) }
            return purposes
        case .publicLibraryList:
            return []
        }
    }

    /// A pass under way goes on; a new one waits `passInterval` after the last one began.
    private func isPassDue(_ scope: MirrorScope) async -> Bool {
        guard let state = try? await store.mirrorScopeState(scope) else { return false }
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

    /// A report or photo the last complete pass did not list, to confirm before any new pass page.
    private func nextMissingItem(_ scope: MirrorScope) async throws -> MissingItem? {
        guard let passStart = try await store.mirrorScopeState(scope).lastCompletePassStartedAt else { return nil }
        switch scope {
        case .reportList: return try await store.reportsMissing(fromPassStartedAt: passStart, limit: 1).first.map(MissingItem.report)
        case .photoList: return try await store.photosMissing(fromPassStartedAt: passStart, limit: 1).first.map(MissingItem.photo)
        default: return nil
        }
    }

    private func nextMissingLibrary() async throws -> (library: MirrorLibrary, passStart: Date)? {
        guard let passStart = try await store.mirrorScopeState(.libraryList).lastCompletePassStartedAt,
            let library = try await store.librariesMissing(fromPassStartedAt: passStart, limit: 1).first
        else { return nil }
        return (library, passStart)
    }

    // MARK: Reads

    private func read(
        _ scope: MirrorScope, _ purpose: ReadPurpose, credentials: StaffCredentials, startedAt: Date
    ) async throws(BackendError) {
        switch (scope, purpose) {
        case (.summary, _):
            let summary = try await client.summary(credentials, context: mirrorCall)
            await saving { try await store.saveMirror(summary: MirrorSummary(summary, confirmedAt: startedAt)) }
        case (.statistics, _):
            let statistics = try await client.statistics(context: mirrorCall)
            await saving {
                let json = try BackendJSON.encoder().encode(statistics)
                try await store.saveMirror(statistics: MirrorStatistics(json: json, lastConfirmedAt: startedAt))
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
        if purpose == .fullPass, let missing = try? await nextMissingItem(scope) {
            try await confirm(missing, scope: scope, credentials: credentials, startedAt: startedAt)
            return
        }
        guard let previous = try? await store.mirrorScopeState(scope) else { return }
        var state = previous
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
        let completedPassStart = isLast ? state.passStartedAt : nil
        if isLast {
            if let completedPassStart { state.lastCompletePassStartedAt = completedPassStart }
            state.passNextPage = 1
            state.passStartedAt = nil
            state.lastPassCompletedAt = now()
        } else {
            state.passNextPage = pagination.page + 1
        }
        // Stored only if the pass is still where we read it from: a process whose lease lapsed
        // during the read never rewinds the pass the new holder has moved on.
        var advanced = false
        await saving { advanced = try await store.advanceMirrorPass(state, from: previous) }
        guard advanced else {
            logger.notice("mirror pass moved on in another process; this read is kept, its cursor not", metadata: ["scope": "\(scope.rawValue)"])
            return
        }
        if let start = completedPassStart {
            await saving {
                switch scope {
                case .reportList: _ = try await store.completeReportPass(startedAt: start, at: now())
                case .photoList: _ = try await store.completePhotoPass(startedAt: start, at: now())
                default: break
                }
            }
        }
    }

    /// A report or photo a complete pass did not list.
    private enum MissingItem {
        case report(MirrorReport)
        case photo(MirrorPhoto)

        var id: Int {
            switch self {
            case .report(let report): report.id
            case .photo(let photo): photo.id
            }
        }

        var createdAt: Date {
            switch self {
            case .report(let report): report.createdAt
            case .photo(let photo): photo.createdAt
            }
        }
    }

    /// Reads the page of the item's list where it would stand (under every status, with the
    /// report's reason, which never changes), found from the mirror's own order. Listed: it is
    /// confirmed. Not listed although the page spans where it would be: it is gone. The page
    /// spans items all newer or all older: the next read looks a page earlier or later.
    /// Never gone by absence from a pass's offset page, which deletions shift while a pass runs.
    private func confirm(_ item: MissingItem, scope: MirrorScope, credentials: StaffCredentials, startedAt: Date) async throws(BackendError) {
        let listedBefore: Int
        do {
            switch item {
            case .report(let report): listedBefore = try await store.reportsListedBefore(report)
            case .photo(let photo): listedBefore = try await store.photosListedBefore(photo)
            }
        } catch {
            logger.error("mirror could not place a missing item", metadata: ["error": "\(error)"])
            return
        }
        let hint = confirmationPages[scope]?[item.id]
        let pageNumber = hint?.page ?? (listedBefore / configuration.pageSize + 1)
        let page = Page(clampingNumber: pageNumber, size: configuration.pageSize)
        let listed: [(id: Int, createdAt: Date)]
        let pagination: Pagination
        switch item {
        case .report(let report):
            let list = try await client.reports(
                status: .all, reason: .only(report.reason), page: page, credentials: credentials, context: mirrorCall)
            await saving { try await store.upsertMirror(reports: convert(list.items) { try MirrorReport($0, confirmedAt: startedAt) }, at: now()) }
            listed = list.items.map { (id: $0.id, createdAt: $0.createdAt) }
            pagination = list.pagination
        case .photo:
            let list = try await client.photos(status: .all, page: page, credentials: credentials, context: mirrorCall)
            await saving { try await store.upsertMirror(photos: convert(list.items) { try MirrorPhoto($0, confirmedAt: startedAt) }, at: now()) }
            listed = list.items.map { (id: $0.id, createdAt: $0.createdAt) }
            pagination = list.pagination
        }
        var place = MissingItemPlace.of(id: item.id, createdAt: item.createdAt, in: listed, page: pagination.page, hasNext: pagination.hasNext)
        // Sent back the way it came (after a page of newer items, before a page of older ones):
        // its place is between the two pages, and neither lists it.
        if let hint, (hint.moved == .before && place == .after) || (hint.moved == .after && place == .before) { place = .gone }
        switch place {
        case .listed:
            confirmationPages[scope]?[item.id] = nil
        case .before:
            confirmationPages[scope, default: [:]][item.id] = (max(1, pagination.page - 1), .before)
        case .after:
            confirmationPages[scope, default: [:]][item.id] = (pagination.page + 1, .after)
        case .gone:
            confirmationPages[scope]?[item.id] = nil
            await saving {
                switch item {
                case .report: _ = try await store.markReportGone(id: item.id, checkedSince: startedAt, at: now())
                case .photo: _ = try await store.markPhotoGone(id: item.id, checkedSince: startedAt, at: now())
                }
            }
        }
    }

    private func fetchAndStore(
        _ scope: MirrorScope, queueOnly: Bool, page: Page, credentials: StaffCredentials, startedAt: Date
    ) async throws(BackendError) -> Pagination {
        switch scope {
        case .reportList:
            let list = try await client.reports(status: queueOnly ? .open : .all, page: page, credentials: credentials, context: mirrorCall)
            await saving { try await store.upsertMirror(reports: convert(list.items) { try MirrorReport($0, confirmedAt: startedAt) }, at: now()) }
            return list.pagination
        case .photoList:
            let list = try await client.photos(status: queueOnly ? .pending : .all, page: page, credentials: credentials, context: mirrorCall)
            await saving { try await store.upsertMirror(photos: convert(list.items) { try MirrorPhoto($0, confirmedAt: startedAt) }, at: now()) }
            return list.pagination
        default:
            let list = try await client.libraries(LibraryFilter(status: queueOnly ? .pending : .all), page: page, credentials: credentials, context: mirrorCall)
            await saving { try await store.upsertMirror(libraries: convert(list.items) { try MirrorLibrary($0, confirmedAt: startedAt) }, at: now()) }
            if queueOnly { await noteLeftQueue(list) }
            return list.pagination
        }
    }

    /// Pending libraries the mirror has in the range a page of the pending queue covers, but
    /// the page did not list: decided or deleted since. Each gets a detail read.
    private func noteLeftQueue(_ list: PagedList<ModerationLibrary>) async {
        let newest = list.pagination.page == 1 ? nil : list.items.first?.createdAt
        let oldest = list.pagination.hasNext ? list.items.last?.createdAt : nil
        let listed = Set(list.items.map(\.id))
        await saving {
            for library in try await store.mirroredLibraries(status: .pending, createdFrom: oldest, through: newest)
            where !listed.contains(library.id) && !libraryChecks.contains(library.slug) {
                libraryChecks.append(library.slug)
            }
        }
    }

    /// Reads the first library that left the pending queue: its new status, or a 404 (gone).
    private func checkLeftQueue(credentials: StaffCredentials, startedAt: Date) async throws(BackendError) {
        guard let slug = libraryChecks.first else { return }
        do {
            let library = try await client.library(slug: slug, credentials: credentials, context: mirrorCall)
            await saving { try await store.upsertMirror(libraries: convert([library]) { try MirrorLibrary($0, confirmedAt: startedAt) }, at: now()) }
        } catch .notFound {
            await saving {
                if let known = try await store.mirroredLibrary(slug: slug) {
                    try await store.markLibraryGone(id: known.id, checkedSince: startedAt, at: now())
                }
            }
        }
        libraryChecks.removeAll { $0 == slug }
    }

    /// A library the last complete pass did not list: read it alone; only a 404 makes it gone.
    private func confirmMissingLibrary(credentials: StaffCredentials, startedAt: Date) async throws(BackendError) {
        guard let missing = await (try? nextMissingLibrary())?.library else { return }
        do {
            let library = try await client.library(slug: missing.slug, credentials: credentials, context: mirrorCall)
            await saving { try await store.upsertMirror(libraries: convert([library]) { try MirrorLibrary($0, confirmedAt: startedAt) }, at: now()) }
        } catch .notFound {
            await saving { try await store.markLibraryGone(id: missing.id, checkedSince: startedAt, at: now()) }
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
    private func saving(_ write: () async throws -> Void) async {
        do {
            try await write()
        } catch is CancellationError {
            return  // shutting down: the next start reads it again
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
    private func noteAnswer(_ answered: Bool) async {
        await saving {
            if answered {
                try await store.noteMirrorAnswered(at: now())
            } else {
                try await store.noteMirrorUnanswered(at: now())
            }
        }
    }

}
