import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// Community photos: each proposed photo beside the library's current one, all from the
/// mirror (the current photo from the mirror's library row: no read per card).
struct PhotoQueueController {
    let store: ModerationStore
    let renderer: PageRenderer

    func addRoutes(to router: some RouterMethods<ConsoleRequestContext>) {
        router.get(SiteURL.Route.photos.pattern, use: grid)
        router.get(SiteURL.Route.photo.pattern, use: viewer)
    }

    @Sendable func grid(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        // Decisions and claims come back to this very list: its filter, order and page.
        let back = SafeRedirect.path(request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""))
        return try await renderer.render(try gridPage(query: ListQuery(request), back: back, context: context), with: "photos")
    }

    /// The grid for `query`; `rejection` is one card's reject form shown again with its error.
    func gridPage(
        query: ListQuery, back: String, context: ConsoleRequestContext, rejection: (id: Int, state: RejectionFormState)? = nil
    ) async throws -> PhotoGridPage {
        let statusFilter = query.choice("status", default: StatusFilter.pending)
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        let photoStatus = PhotoStatus(rawValue: statusFilter.rawValue)
        let standardOrder = QueueOrder.standard(listsWaitingItems: statusFilter == .pending)
        let order = query.chosenOrder() ?? standardOrder
        let (pagePhotos, total) = try await store.mirroredPhotoPage(
            status: photoStatus, order: order, limit: query.page.size, offset: { Pagination.mirroredOffset(query.page, total: $0) })
        let pagination = Pagination.mirrored(query.page, total: total)
        // Photos the viewer just decided out of this list stay where they were, decided.
        let decisions = try await DecidedRows.recentDecisions(store, kind: .photo, viewer: context.session?.staffId, now: Date())
        let onPage = Set(pagePhotos.map { String($0.id) })
        let decidedAway = try await store.mirroredPhotos(
            ids: decisions.values.filter { !onPage.contains($0.targetKey) && statusFilter.rawValue == $0.statusSeen.rawValue }
                .compactMap { Int($0.targetKey) })
        let photos = DecidedRows.merge(
            page: pagePhotos, decided: decidedAway, order: order, isFirstPage: pagination.page == 1, isLastPage: !pagination.hasNext,
            key: { DecidedRows.SortKey(createdAt: $0.createdAt, id: $0.id) })
        let currentPhotos = try await store.mirroredPhotoURLs(libraryIDs: Set(photos.map(\.libraryId)))
        if statusFilter == .pending { status.freshnessGoal = MirrorPageData.queueFreshnessGoal }
        for photo in pagePhotos { status.mirrored(confirmedAt: photo.lastConfirmedAt) }
        if !pagePhotos.isEmpty { status.showsMirroredRows() }
        let now = Date()
        let filters: [(String, String?)] = [("status", statusFilter.rawValue), ("order", order == standardOrder ? nil : order.rawValue)]
        let targets = try await store.queueTargets()
        let claims = try await store.activeClaims(kind: .photo, keys: photos.map { String($0.id) }, now: now)
        let queued = await context.sendSchedule.shown(
            byKey: try store.unfinishedDecisions(kind: .photo, keys: photos.map { String($0.id) }), store: store, now: now)
        // Decided cards say who decided, when and why: one read of the audit log for the page.
        let lastDecisions = try await store.latestDecisions(kind: .photo, targetIds: photos.filter { $0.status != .pending }.map { String($0.id) })
        let libraryPhotos = try await store.mirroredLibraryPhotoIDs(among: photos.filter { $0.status == .approved }.map(\.id))
        var page = PhotoGridPage(
            layout: LayoutModel(context: context, title: "Photos", active: .photos, summary: summary, status: status),
            statusOptions: StatusFilter.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: $0 == statusFilter) },
            cards: photos.map { photo in
                var card = Self.card(
                    photo, currentPhotoURL: currentPhotos[photo.libraryId], targets: targets, claim: claims[String(photo.id)],
                    queued: queued[String(photo.id)], lastDecision: lastDecisions[String(photo.id)], viewer: context.session?.staffId, back: back, now: now)
                if let rejection, rejection.id == photo.id { card.rejection = rejection.state }
                card.isLibraryPhoto = libraryPhotos.contains(photo.id)
                return card
            },
            loaded: summary != nil || !photos.isEmpty,
            pager: Pager(url: .photos, filters: filters, pagination: pagination, order: order))
        page.frame.back = back
        page.frame.keepPageSize(of: query)
        let ignored = [
            query.ignored("status", isNot: "a status", so: "waiting photos are shown") { StatusFilter(rawValue: $0) != nil },
            query.ignored("order", isNot: "an order this list offers", so: "it is in its usual order") {
                QueueOrder(rawValue: $0).map(QueueOrder.byTime.contains) ?? false
            },
        ].compactMap { $0 }
        page.frame.say(ignored: ignored, reading: ["status", "order", "page", "page_size"], of: query, shownPage: pagination.page)
        page.frame.orderSwitch = OrderSwitch(order: order, standard: standardOrder, url: .photos, filters: filters)
        return page
    }

    /// One proposed photo large beside the current one (`view=swipe`: one over the other, a
    /// slider between); its decisions return to the photo list at its card.
    @Sendable func viewer(_ request: Request, context: ConsoleRequestContext) async throws -> HTML {
        guard let text = SiteURL.Route.photo.value(in: context.parameters), let id = ItemReference.id(text) else { throw ConsoleError.notFound }
        var status = PageStatus()
        let summary = try await MirrorPageData.summary(store, status: &status)
        guard let photo = try await store.mirroredPhotos(ids: [id]).first else { throw ConsoleError.backend(.notFound) }
        status.mirrored(confirmedAt: photo.lastConfirmedAt)
        let now = Date()
        let key = String(photo.id)
        let here = SiteURL.photo(photo.id).path
        var card = Self.card(
            photo, currentPhotoURL: try await store.mirroredPhotoURLs(libraryIDs: [photo.libraryId])[photo.libraryId],
            targets: try await store.queueTargets(), claim: try await store.activeClaims(kind: .photo, keys: [key], now: now)[key],
            queued: await context.sendSchedule.shown(byKey: try store.unfinishedDecisions(kind: .photo, keys: [key]), store: store, now: now)[key],
            lastDecision: try await store.latestDecisions(kind: .photo, targetIds: photo.status == .pending ? [] : [key])[key],
            viewer: context.session?.staffId, back: here, now: now)
        card.isLibraryPhoto = try await store.mirroredLibraryPhotoIDs(among: photo.status == .approved ? [photo.id] : []).contains(photo.id)
        let page = PhotoViewerPage(
            layout: LayoutModel(context: context, title: "Photo for \(card.libraryName)", active: .photos, summary: summary, status: status),
            card: card, view: ListQuery(request).choice("view", default: PhotoViewerPage.View.sideBySide))
        return try renderer.render(page, with: "photo-viewer")
    }

    /// A photo's card as the list and the viewer show it: who decided it, who is reviewing it,
    /// a decision on its way; `back` is where its forms return.
    private static func card(
        _ photo: MirrorPhoto, currentPhotoURL: String?, targets: QueueTargets, claim: ItemClaim?, queued: ModerationAction?,
        lastDecision: AuditEntry?, viewer: Int?, back: String, now: Date
    ) -> PhotoCard {
        var card = PhotoCard(photo, currentPhotoURL: currentPhotoURL, targets: targets, now: now)
        if photo.status != .pending {
            // Book Corners keeps no reason for photos: only the console's own decision has one.
            card.decidedNote = DecidedNote(status: ItemStatus(photo.status), entry: lastDecision, mirroredReason: "", now: now)
        }
        let target = ItemClaim.Target(kind: .photo, key: String(photo.id))
        card.claim = ClaimBadge(claim: claim, target: target, viewerId: viewer, isWaiting: photo.status == .pending, now: now, back: back)
        if let queued { card.queuedDecision(QueuedDecisionNote(queued, viewerId: viewer, now: now)) }
        return card
    }
}
