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
        let order = query.chosenOrder ?? standardOrder
        let (photos, total) = try await store.mirroredPhotoPage(
            status: photoStatus, order: order, limit: query.page.size, offset: { Pagination.mirroredOffset(query.page, total: $0) })
        let pagination = Pagination.mirrored(query.page, total: total)
        let currentPhotos = try await store.mirroredPhotoURLs(libraryIDs: Set(photos.map(\.libraryId)))
        if statusFilter == .pending { status.freshnessGoal = MirrorPageData.queueFreshnessGoal }
        for photo in photos { status.mirrored(confirmedAt: photo.lastConfirmedAt) }
        if !photos.isEmpty { status.showsMirroredRows() }
        let now = Date()
        let filters: [(String, String?)] = [("status", statusFilter.rawValue), ("order", order == standardOrder ? nil : order.rawValue)]
        let targets = try await store.queueTargets()
        let claims = try await store.activeClaims(kind: .photo, keys: photos.map { String($0.id) }, now: now)
        let queued = try await store.unfinishedDecisions(kind: .photo, keys: photos.map { String($0.id) })
        // Decided cards say who decided, when and why: one read of the audit log for the page.
        let lastDecisions = try await store.latestDecisions(kind: .photo, targetIds: photos.filter { $0.status != .pending }.map { String($0.id) })
        var page = PhotoGridPage(
            layout: LayoutModel(context: context, title: "Photos", active: .photos, summary: summary, status: status),
            statusOptions: StatusFilter.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: $0 == statusFilter) },
            cards: photos.map { photo in
                var card = PhotoCard(photo, currentPhotoURL: currentPhotos[photo.libraryId], targets: targets, now: now)
                if photo.status != .pending {
                    // Book Corners keeps no reason for photos: only the console's own decision has one.
                    card.decidedNote = DecidedNote(status: ItemStatus(photo.status), entry: lastDecisions[String(photo.id)], mirroredReason: "", now: now)
                }
                let target = ItemClaim.Target(kind: .photo, key: String(photo.id))
                card.claim = ClaimBadge(
                    claim: claims[target.key], target: target, viewerId: context.session?.staffId, isWaiting: photo.status == .pending, now: now,
                    back: back)
                if let rejection, rejection.id == photo.id { card.rejection = rejection.state }
                if let action = queued[String(photo.id)] { card.queuedDecision(QueuedDecisionNote(action, viewerId: context.session?.staffId, now: now)) }
                return card
            },
            loaded: summary != nil || !photos.isEmpty,
            pager: Pager(url: .photos, filters: filters, pagination: pagination, order: order))
        page.back = back
        if query.page.size != ListQuery.defaultPageSize { page.pageSize = String(query.page.size) }
        page.orderSwitch = OrderSwitch(order: order, standard: standardOrder, url: .photos, filters: filters)
        return page
    }
}

struct PhotoGridPage: MustacheParent {
    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let cards: [PhotoCard]
    let loaded: Bool
    let pager: Pager?
    let isEmpty: Bool
    /// Where decisions and claims return: this list as it was asked for.
    var back: String
    var orderSwitch = OrderSwitch.none
    let filterURL = SiteURL.photos.path

    init(layout: LayoutModel, statusOptions: [FilterOption], cards: [PhotoCard], loaded: Bool, pager: Pager?) {
        self.layout = layout
        self.statusOptions = statusOptions

        self.cards = cards
        self.loaded = loaded
        self.pager = pager
        isEmpty = loaded && cards.isEmpty
        back = SiteURL.photos.path
    }

    /// The page size the list was asked for, when not the standard one: filtering keeps it.
    var pageSize = ""

    func child(named key: String) -> Any? {
        switch key {
        case "pageSize": pageSize
        case "hasPageSize": !pageSize.isEmpty
        case "layout": layout
        case "statusOptions": statusOptions
        case "cards": cards
        case "loaded": loaded
        case "pager": pager
        case "isEmpty": isEmpty
        case "back": back
        case "orderSwitch": orderSwitch
        case "filterURL": filterURL
        default: nil
        }
    }
}

/// A proposed photo and the photo it would replace.
struct PhotoCard: MustacheParent {
    let id: Int
    let proposedURL: String
    let currentURL: String
    let hasCurrentPhoto: Bool
    let caption: String
    let submitter: String
    /// Someone sent it (a push can tell them); an anonymous photo's rejection tells nobody.
    let hasSubmitter: Bool
    let libraryName: String
    let librarySlug: String
    let libraryPlace: String
    let age: String
    let createdAt: String
    let createdUTC: String
    let status: String
    private(set) var isPending: Bool
    /// A decision recorded but not yet sent: shown instead of the decision forms.
    private(set) var queued = QueuedDecisionNote.none
    let decisionKey = UUID().uuidString
    let libraryURL: String
    let decideURL: String
    /// Who is reviewing it, or the "I'm reviewing this" button.
    var claim = ClaimBadge.hidden
    /// The reject form: its reason presets, and the error and typed text when it is shown again.
    var rejection = RejectionFormState(error: "", typedReason: "", chosenPreset: "", presets: DecisionController.photoPresetReasons)
    /// A pending photo past or near the queue's target (On call: alerts).
    let mark: QueueStandingMark
    /// Who decided a decided photo, when and why ("Rejected by staff 45 s ago" and the reason);
    /// the status alone for a decision the console did not see. Hidden on a waiting photo.
    var decidedNote = DecidedNote.none

    init(_ photo: MirrorPhoto, currentPhotoURL: String?, targets: QueueTargets, now: Date) {
        id = photo.id
        libraryURL = SiteURL.library(photo.librarySlug).path
        decideURL = SiteURL.photoDecide(photo.id).path
        proposedURL = photo.photoUrl
        currentURL = currentPhotoURL ?? ""
        hasCurrentPhoto = !currentURL.isEmpty
        caption = photo.caption.isEmpty ? "(no caption)" : photo.caption
        submitter = photo.submitterUsername ?? "anonymous"
        hasSubmitter = photo.submitterId != nil
        libraryName = LibraryText.displayName(photo.libraryName)
        librarySlug = photo.librarySlug
        libraryPlace = LibraryText.place(city: photo.libraryCity, country: photo.libraryCountry)
        age = TimeText.age(of: photo.createdAt, now: now)
        createdAt = TimeText.iso(photo.createdAt)
        createdUTC = TimeText.utc(photo.createdAt)
        status = photo.status.rawValue
        isPending = photo.status == .pending
        mark = isPending ? QueueStandingMark(.photos, createdAt: photo.createdAt, targets: targets, now: now) : .none
    }

    init(_ photo: ModerationPhoto, currentPhotoURL: String?, now: Date) {
        mark = .none
        id = photo.id
        libraryURL = SiteURL.library(photo.library.slug).path
        decideURL = SiteURL.photoDecide(photo.id).path
        proposedURL = photo.photoUrl
        currentURL = currentPhotoURL ?? ""
        hasCurrentPhoto = !currentURL.isEmpty
        caption = photo.caption.isEmpty ? "(no caption)" : photo.caption
        submitter = photo.createdBy?.username ?? "anonymous"
        hasSubmitter = photo.createdBy != nil
        libraryName = LibraryText.displayName(photo.library.name)
        librarySlug = photo.library.slug
        libraryPlace = LibraryText.place(city: photo.library.city, country: photo.library.country)
        age = TimeText.age(of: photo.createdAt, now: now)
        createdAt = TimeText.iso(photo.createdAt)
        createdUTC = TimeText.utc(photo.createdAt)
        status = photo.status
        isPending = photo.moderationStatus == .pending
    }

    /// A decision on its way: its note instead of Use and Reject until it is sent.
    mutating func queuedDecision(_ note: QueuedDecisionNote) {
        queued = note
        isPending = false
        claim = .hidden
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "proposedURL": proposedURL
        case "currentURL": currentURL
        case "hasCurrentPhoto": hasCurrentPhoto
        case "caption": caption
        case "submitter": submitter
        case "hasSubmitter": hasSubmitter
        case "libraryName": libraryName
        case "librarySlug": librarySlug
        case "libraryPlace": libraryPlace
        case "age": age
        case "createdAt": createdAt
        case "createdUTC": createdUTC
        case "status": status
        case "isPending": isPending
        case "decisionKey": decisionKey
        case "libraryURL": libraryURL
        case "decideURL": decideURL
        case "claim": claim
        case "mark": mark
        case "rejection": rejection
        case "queued": queued
        case "decidedNote": decidedNote
        default: nil
        }
    }
}
