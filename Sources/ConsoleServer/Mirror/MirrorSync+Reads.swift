import BookCornersAPI
import Foundation
import Logging
import ModerationStore
import ServiceLifecycle

/// The reads themselves: a list page (the queue's front, the next page of a pass), the
/// confirmation of an item a pass missed, and the checks of libraries that left the queue.
extension MirrorSync {
    func read(
        _ scope: MirrorScope, _ purpose: ReadPurpose, _ read: MirrorRead
    ) async throws(BackendError) {
        switch (scope, purpose) {
        case (.summary, _):
            let summary = try await client.summary(read.credentials, context: read.context)
            await saving { try await store.saveMirror(summary: MirrorSummary(summary, confirmedAt: read.startedAt)) }
        case (.statistics, _):
            let statistics = try await client.statistics(context: read.context)
            await saving {
                let json = try BackendJSON.encoder().encode(statistics)
                try await store.saveMirror(statistics: MirrorStatistics(json: json, lastConfirmedAt: read.startedAt))
            }
        case (.libraryDetail, .pendingItems):
            try await checkLeftQueue(read)
        case (.libraryDetail, _):
            try await confirmMissingLibrary(read)
        case (.libraryList, _), (.reportList, _), (.photoList, _):
            try await readList(scope, purpose, read)
        }
    }

    /// One page of a list: the queue's first page, the queue's next page, or the pass's next page.
    func readList(
        _ scope: MirrorScope, _ purpose: ReadPurpose, _ read: MirrorRead
    ) async throws(BackendError) {
        if purpose == .fullPass, let missing = try? await nextMissingItem(scope) {
            try await confirm(missing, scope: scope, read)
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
                sweep.lastStartedAt = read.startedAt
            }
            sweeps[scope] = sweep
            pageNumber = sweep.nextPage ?? 2
            queueOnly = true
        case .fullPass, .decisionCheck:
            if state.passNextPage <= 1 || state.passStartedAt == nil {
                state.passNextPage = 1
                state.passStartedAt = read.startedAt
            }
            pageNumber = state.passNextPage
            queueOnly = false
        }
        let page = Page(clampingNumber: pageNumber, size: configuration.pageSize)
        let pagination = try await fetchAndStore(scope, queueOnly: queueOnly, page: page, read)
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
    enum MissingItem {
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
    func confirm(_ item: MissingItem, scope: MirrorScope, _ read: MirrorRead) async throws(BackendError) {
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
                status: .all, reason: .only(report.reason), page: page, credentials: read.credentials, context: read.context)
            await saving { try await store.upsertMirror(reports: convert(list.items) { try MirrorReport($0, confirmedAt: read.startedAt) }, at: now()) }
            listed = list.items.map { (id: $0.id, createdAt: $0.createdAt) }
            pagination = list.pagination
        case .photo:
            let list = try await client.photos(status: .all, page: page, credentials: read.credentials, context: read.context)
            await saving { try await store.upsertMirror(photos: convert(list.items) { try MirrorPhoto($0, confirmedAt: read.startedAt) }, at: now()) }
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
                case .report: _ = try await store.markReportGone(id: item.id, checkedSince: read.startedAt, at: now())
                case .photo: _ = try await store.markPhotoGone(id: item.id, checkedSince: read.startedAt, at: now())
                }
            }
        }
    }

    func fetchAndStore(
        _ scope: MirrorScope, queueOnly: Bool, page: Page, _ read: MirrorRead
    ) async throws(BackendError) -> Pagination {
        switch scope {
        case .reportList:
            let list = try await client.reports(status: queueOnly ? .open : .all, page: page, credentials: read.credentials, context: read.context)
            await saving { try await store.upsertMirror(reports: convert(list.items) { try MirrorReport($0, confirmedAt: read.startedAt) }, at: now()) }
            return list.pagination
        case .photoList:
            let list = try await client.photos(status: queueOnly ? .pending : .all, page: page, credentials: read.credentials, context: read.context)
            await saving { try await store.upsertMirror(photos: convert(list.items) { try MirrorPhoto($0, confirmedAt: read.startedAt) }, at: now()) }
            return list.pagination
        default:
            let list = try await client.libraries(
                LibraryFilter(status: queueOnly ? .pending : .all), page: page, credentials: read.credentials, context: read.context)
            await saving { try await store.upsertMirror(libraries: convert(list.items) { try MirrorLibrary($0, confirmedAt: read.startedAt) }, at: now()) }
            if queueOnly { await noteLeftQueue(list) }
            return list.pagination
        }
    }

    /// Pending libraries the mirror has in the range a page of the pending queue covers, but
    /// the page did not list: decided or deleted since. Each gets a detail read.
    func noteLeftQueue(_ list: PagedList<ModerationLibrary>) async {
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
    func checkLeftQueue(_ read: MirrorRead) async throws(BackendError) {
        guard let slug = libraryChecks.first else { return }
        do {
            let library = try await client.library(slug: slug, credentials: read.credentials, context: read.context)
            await saving { try await store.upsertMirror(libraries: convert([library]) { try MirrorLibrary($0, confirmedAt: read.startedAt) }, at: now()) }
        } catch .notFound {
            await saving {
                if let known = try await store.mirroredLibrary(slug: slug) {
                    try await store.markLibraryGone(id: known.id, checkedSince: read.startedAt, at: now())
                }
            }
        }
        libraryChecks.removeAll { $0 == slug }
    }

    /// A library the last complete pass did not list: read it alone; only a 404 makes it gone.
    func confirmMissingLibrary(_ read: MirrorRead) async throws(BackendError) {
        guard let missing = await (try? nextMissingLibrary())?.library else { return }
        do {
            let library = try await client.library(slug: missing.slug, credentials: read.credentials, context: read.context)
            await saving { try await store.upsertMirror(libraries: convert([library]) { try MirrorLibrary($0, confirmedAt: read.startedAt) }, at: now()) }
        } catch .notFound {
            await saving { try await store.markLibraryGone(id: missing.id, checkedSince: read.startedAt, at: now()) }
        }
    }
}
