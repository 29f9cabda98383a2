import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The library submissions queue and a library's detail page, both read from the mirror:
/// a page view never calls the backend.
struct LibraryQueueController {
    let store: ModerationStore
    let renderer: PageRenderer

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.libraries.pattern, use: list)
        router.get(SiteURL.Route.library.pattern, use: detail)
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        // A bulk draft in the address ticks its rows once; the list's forms return without it.
        let back = SafeRedirect.path(request.uri.path + (BulkDraft.removed(from: request.uri.query).map { "?" + $0 } ?? ""))
        var page = try await listPage(query: ListQuery(request), back: back, context: context)
        page.keep(BulkDraft(query: request.uri.query))
        return try renderer.render(page, with: "libraries")
    }

    /// The list for `query`; `back` is its own address (where its forms return). Also what a
    /// bulk form that cannot be acted on is shown again on, with the error in its bar.
    func listPage(query: ListQuery, back: String, context: ConsoleRequestContext) async throws -> LibraryListPage {
        let queue = LibraryQueueContext(query)
        let filter = queue.filter
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        // The page past the last shows the last, as the backend did: the count chooses the page.
        let (pageRows, total) = try await store.mirroredLibraryPage(
            queue.mirrorQuery, order: queue.order, limit: query.page.size, offset: { Pagination.mirroredOffset(query.page, total: $0) })
        let pagination = Pagination.mirrored(query.page, total: total)
        let now = Date()
        let decisions = try await DecidedRows.recentDecisions(store, kind: .library, viewer: context.session?.staffId, now: now)
        // Rows the viewer just decided out of this list stay where they were, with their outcome.
        let onPage = Set(pageRows.map(\.slug))
        let decidedAway = try await store.mirroredLibraries(
            slugs: decisions.values.filter { !onPage.contains($0.targetKey) && filter.status.rawValue == $0.statusSeen.rawValue }.map(\.targetKey),
            matching: queue.mirrorQuery)
        let ranks = queue.order == .needsALookFirst ? try await store.concernRanks(of: pageRows + decidedAway) : [:]
        let rows = DecidedRows.merge(
            page: pageRows, decided: decidedAway, order: queue.order, isFirstPage: pagination.page == 1, isLastPage: !pagination.hasNext,
            key: { DecidedRows.SortKey(rank: ranks[$0.id]?.rawValue ?? 0, createdAt: $0.createdAt, id: $0.id) })
        let concerns = try await LibraryConcerns.shown(rows, in: store)
        if filter.status == .pending { status.freshnessGoal = MirrorPageData.queueFreshnessGoal }
        for row in pageRows { status.mirrored(confirmedAt: row.lastConfirmedAt) }
        if !pageRows.isEmpty { status.showsMirroredRows() }
        let claims = try await store.activeClaims(kind: .library, keys: rows.map(\.slug), now: now)
        let targets = try await store.queueTargets()
        // Decisions on their way show as such; decided rows say who decided, when and why.
        let queued = await context.sendSchedule.shown(byKey: try store.unfinishedDecisions(kind: .library, keys: rows.map(\.slug)), store: store, now: now)
        let lastDecisions = try await store.latestDecisions(kind: .library, targetIds: rows.filter { $0.status != .pending }.map { String($0.id) })
        let detailPath = queue.detailPaths()
        var page = LibraryListPage(
            layout: LayoutModel(context: context, title: "Libraries", active: .libraries, summary: summary, status: status),
            statusOptions: StatusFilter.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: $0 == filter.status) },
            text: filter.text ?? "", country: filter.country ?? "", source: filter.source ?? "",
            rows: rows.map { library in
                var row = LibraryRow(library, concerns: concerns[library.id] ?? [], targets: targets, now: now, libraryURL: detailPath(library.slug))
                if library.status != .pending {
                    row.decidedNote = DecidedNote(
                        status: ItemStatus(library.status), entry: lastDecisions[String(library.id)], mirroredReason: library.rejectionReason, now: now)
                }
                if let decision = decisions[library.slug], decision.state.isFinal || queued[library.slug] == nil {
                    row.decided(RowOutcome(decision))
                } else if let action = queued[library.slug] {
                    row.queuedDecision(QueuedDecisionNote(action, viewerId: context.session?.staffId, now: now))
                } else {
                    row.claim = ClaimBadge(
                        claim: claims[library.slug], target: ItemClaim.Target(kind: .library, key: library.slug), viewerId: context.session?.staffId,
                        isWaiting: library.status == .pending, now: now, back: back, insideForm: true)
                }
                return row
            },
            loaded: summary != nil || !rows.isEmpty,
            pager: Pager(
                url: .libraries, filters: queue.filterItems.filter { $0.name != "page_size" && $0.name != "page" }.map { ($0.name, $0.value) },
                pagination: pagination,
                order: queue.order),
            orderSwitch: OrderSwitch(
                order: queue.order, standard: QueueOrder.standard(listsWaitingItems: filter.status == .pending),
                choices: LibraryQueueContext.orders(for: filter.status), link: { queue.with(order: $0).listPath }),
            back: back, timeHeading: LibraryListPage.timeHeading(filter.status))
        page.reasonOptions = LibraryListPage.reasonOptions(chosen: queue.concern)
        page.frame.keepPageSize(of: query)
        if page.hasWaitingRows { page.reasonsIncomplete = try await LibraryConcerns.incompleteNote(in: store) }
        page.frame.say(
            ignored: queue.ignoredFilters, reading: queue.filterItems.map(\.name), prefixes: [BulkDraft.parameterPrefix], of: query, shownPage: pagination.page)
        if queue.concern != nil, filter.status == .approved || filter.status == .rejected {
            page.emptyText =
                "No libraries match these filters: reasons to look are kept for waiting libraries only, so a list of decided ones has none. A decided library's page shows the reasons it left the queue with."
        }
        return page
    }

    /// The viewer's decisions on libraries that still count as just made, by slug.
    @Sendable func detail(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        // Only slug characters: anything else cannot be a library.
        guard let slug = SiteURL.Route.library.value(in: context.parameters), ItemReference.isSlug(slug) else { throw ConsoleError.notFound }
        return try await renderer.render(try detailPage(slug: slug, queue: LibraryQueueContext(ListQuery(request)), context: context), with: "library-detail")
    }

    /// A library's page as opened from `queue`: also what a decision form that needs fixing
    /// (a rejection without a reason) is shown again on, with the error next to its field.
    func detailPage(slug: String, queue: LibraryQueueContext, context: ConsoleRequestContext) async throws -> LibraryDetailPage {
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        guard let mirrored = try await store.mirroredLibrary(slug: slug) else {
            // Before the first pass the mirror cannot know; after it, an unknown slug is no library
            // (or one the sync found deleted): say so as a backend 404 would.
            guard summary == nil else { throw ConsoleError.backend(.notFound) }
            return LibraryDetailPage.unavailable(
                layout: LayoutModel(context: context, title: "Library", active: .libraries, summary: summary, status: status))
        }
        status.mirrored(confirmedAt: mirrored.lastConfirmedAt)
        guard let record = mirrored.record, var library = try? BackendJSON.decoder().decode(ModerationLibrary.self, from: record) else {
            // A row from before the mirror kept whole records: the next pass brings it.
            status.mirrored(confirmedAt: nil)
            return LibraryDetailPage.unavailable(
                layout: LayoutModel(context: context, title: "Library", active: .libraries, summary: summary, status: status))
        }
        // The row's columns are what the console's own decisions update at once: they win over the kept record.
        library.status = mirrored.status.rawValue
        library.rejectionReason = mirrored.rejectionReason
        let settings = try await store.concernSettings()
        let duplicates = try await store.mirroredDuplicates(of: mirrored, settings: settings)
        let now = Date()
        let target = ItemClaim.Target(kind: .library, key: library.slug)
        var page = await LibraryDetailPage(
            layout: LayoutModel(context: context, title: LibraryText.displayName(library.name), active: .libraries, summary: summary, status: status),
            library: library, duplicates: duplicates, settings: settings, targets: try store.queueTargets(), now: now)
        page.neighbourhood = NeighbourhoodMap(
            library: mirrored,
            neighbours: try await store.mirroredLibraries(
                near: mirrored.lat, mirrored.lng, withinMetres: NeighbourhoodMap.radiusMetres, statuses: LibraryStatus.allCases),
            settings: settings, link: { SiteURL.library($0).path })
        page.showsDecidedConcerns(try await store.decidedLibraryConcerns(libraryId: mirrored.id))
        let evidence = try await store.libraryEvidence(for: [mirrored], within: settings.neighbourhoodMetres)[mirrored.id]
        page.showsSubmitter(evidence?.submitter)
        if let submitter = mirrored.submitterId {
            let name = mirrored.submitterUsername ?? "user \(submitter)"
            page.submitterHistory = try await ContributorHistoryView.load(
                heading: "Also from \(name)", accountId: submitter, username: name, excludingLibrary: mirrored.id, store: store, now: now)
        }
        if mirrored.status == .pending {
            page.concerns = LibraryConcerns.assess(mirrored, evidence: evidence, settings: settings)
            page.reasonsIncomplete = try await LibraryConcerns.incompleteNote(in: store)
            if let reason = LibraryConcerns.duplicateReason(evidence, settings: settings) { page.namesDuplicate(inReason: reason) }
        }
        let here = queue.detailPath(slug: library.slug)
        page.claim = await ClaimBadge(
            claim: try store.activeClaim(target, now: now), target: target, viewerId: context.session?.staffId,
            isWaiting: library.moderationStatus == .pending, now: now, back: here)
        if let action = await context.sendSchedule.shown(
            byKey: try store.unfinishedDecisions(kind: .library, keys: [library.slug]), store: store, now: now)[library.slug]
        {
            page.queuedDecision(QueuedDecisionNote(action, viewerId: context.session?.staffId, now: now))
        }
        page.heldDecisions = try await store.heldDecisions(kind: .library, key: library.slug).map(QueuedDecisionNote.heldLine)
        if let current = library.moderationStatus, current != .pending {
            let entry = try await store.latestDecisions(kind: .library, targetIds: [String(library.id)])[String(library.id)]
            page.decided = DecidedNote(status: ItemStatus(current), entry: entry, mirroredReason: library.rejectionReason, now: now)
        }
        let neighbours = try await LibraryQueueNavigator(store: store).neighbours(of: mirrored, in: queue, viewer: context.session?.staffId, now: now)
        page.queue = QueueLinks(queue: queue, previous: neighbours.previous, next: neighbours.next, here: here)
        // Opened with filters it does not match (a typed address, a search changed since): its
        // place is still its submission time, but the page must not call it the list's last.
        // Status and reason are left out: a library decided a moment ago leaves both behind.
        var searched = queue.mirrorQuery
        (searched.status, searched.concern) = (nil, nil)
        if searched.text != nil || searched.country != nil || searched.source != nil {
            page.queue.isOutside = try await store.mirroredLibraries(slugs: [slug], matching: searched).isEmpty
        }
        return page
    }
}
