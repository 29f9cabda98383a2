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
        let back = SafeRedirect.path(request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""))
        return try await renderer.render(try listPage(query: ListQuery(request), back: back, context: context), with: "libraries")
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
        let decisions = try await recentDecisions(viewer: context.session?.staffId, now: now)
        // Rows the viewer just decided out of this list stay where they were, with their outcome.
        let onPage = Set(pageRows.map(\.slug))
        let decidedAway = try await store.mirroredLibraries(
            slugs: decisions.values.filter { !onPage.contains($0.targetKey) && filter.status.rawValue == $0.statusSeen.rawValue }.map(\.targetKey),
            matching: queue.mirrorQuery)
        let rows = DecidedRows.merge(
            page: pageRows, decided: decidedAway, order: queue.order, isFirstPage: pagination.page == 1, isLastPage: !pagination.hasNext,
            key: { DecidedRows.SortKey(createdAt: $0.createdAt, id: $0.id) })
        let duplicated = try await store.idsWithDuplicates(among: rows)
        if filter.status == .pending { status.freshnessGoal = MirrorPageData.queueFreshnessGoal }
        for row in pageRows { status.mirrored(confirmedAt: row.lastConfirmedAt) }
        if !pageRows.isEmpty { status.showsMirroredRows() }
        let claims = try await store.activeClaims(kind: .library, keys: rows.map(\.slug), now: now)
        let targets = try await store.queueTargets()
        // Decisions on their way show as such; decided rows say who decided, when and why.
        let queued = try await store.unfinishedDecisions(kind: .library, keys: rows.map(\.slug))
        let lastDecisions = try await store.latestDecisions(kind: .library, targetIds: rows.filter { $0.status != .pending }.map { String($0.id) })
        var page = LibraryListPage(
            layout: LayoutModel(context: context, title: "Libraries", active: .libraries, summary: summary, status: status),
            statusOptions: StatusFilter.allCases.map { FilterOption(value: $0.rawValue, label: $0.rawValue.capitalized, selected: $0 == filter.status) },
            text: filter.text ?? "", country: filter.country ?? "", source: filter.source ?? "",
            rows: rows.map { library in
                var row = LibraryRow(library, hasDuplicate: duplicated.contains(library.id), targets: targets, now: now)
                row.libraryURL = queue.detailPath(slug: library.slug)
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
                url: .libraries, filters: queue.filterItems.filter { $0.name != "page_size" }.map { ($0.name, $0.value) }, pagination: pagination,
                order: queue.order),
            orderSwitch: OrderSwitch(
                order: queue.order, standard: QueueOrder.standard(listsWaitingItems: filter.status == .pending), link: { queue.with(order: $0).listPath }),
            back: back, timeHeading: LibraryListPage.timeHeading(filter.status))
        if query.page.size != ListQuery.defaultPageSize { page.pageSize = String(query.page.size) }
        return page
    }

    /// The viewer's decisions on libraries that still count as just made, by slug.
    private func recentDecisions(viewer: Int?, now: Date) async throws -> [String: ModerationAction] {
        guard let viewer else { return [:] }
        let actions = try await store.recentDecisions(actorId: viewer, kind: .library, since: now.addingTimeInterval(-3600))
            .filter { RowOutcome.isRecent($0, now: now) }
        return Dictionary(actions.map { ($0.targetKey, $0) }, uniquingKeysWith: { first, _ in first })
    }

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
        let duplicates = try await store.mirroredDuplicates(of: mirrored)
        let now = Date()
        let target = ItemClaim.Target(kind: .library, key: library.slug)
        var page = await LibraryDetailPage(
            layout: LayoutModel(context: context, title: LibraryText.displayName(library.name), active: .libraries, summary: summary, status: status),
            library: library, duplicates: duplicates, targets: try store.queueTargets(), now: now)
        let here = queue.detailPath(slug: library.slug)
        page.claim = await ClaimBadge(
            claim: try store.activeClaim(target, now: now), target: target, viewerId: context.session?.staffId,
            isWaiting: library.moderationStatus == .pending, now: now, back: here)
        if let action = try await store.unfinishedDecisions(kind: .library, keys: [library.slug])[library.slug] {
            page.queuedDecision(QueuedDecisionNote(action, viewerId: context.session?.staffId, now: now))
        }
        if let current = library.moderationStatus, current != .pending {
            let entry = try await store.latestDecisions(kind: .library, targetIds: [String(library.id)])[String(library.id)]
            page.decided = DecidedNote(status: ItemStatus(current), entry: entry, mirroredReason: library.rejectionReason, now: now)
        }
        let neighbours = try await LibraryQueueNavigator(store: store).neighbours(of: mirrored, in: queue, viewer: context.session?.staffId, now: now)
        page.queue = LibraryDetailPage.QueueLinks(queue: queue, previous: neighbours.previous, next: neighbours.next, here: here)
        return page
    }
}

/// The libraries queue page.
struct LibraryListPage: MustacheParent {
    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let text: String
    let country: String
    let source: String
    let rows: [LibraryRow]
    let loaded: Bool
    let pager: Pager?
    let orderSwitch: OrderSwitch
    let isEmpty: Bool
    let hasRows: Bool
    /// Whether any row can be selected: bulk decisions are for waiting libraries only.
    let hasWaitingRows: Bool
    let presetReasons = DecisionController.presetReasons
    let back: String
    let filterURL = SiteURL.libraries.path
    let bulkURL = SiteURL.librariesBulk.path
    /// One key per rendered list: a row's one-click approval uses it with the row's slug.
    let decisionKey = UUID().uuidString
    /// The time column's heading: "Waiting" for waiting items, "Decided" for decided ones.
    let timeHeading: String
    /// Why the bulk form just sent could not be acted on, said in its bar; "" when it could.
    var bulkError = ""
    /// The reason preset the bulk form was sent with, chosen again when it is shown again.
    var bulkPreset = ""
    /// The decision and the typed reason of a bulk form sent back with its error.
    var bulkDecision = ""
    var bulkReason = ""

    /// What the time column shows for a list of libraries in `status`.
    static func timeHeading(_ status: StatusFilter) -> String {
        switch status {
        case .pending: "Waiting"
        case .all: "Waiting or decided"
        default: "Decided"
        }
    }

    init(
        layout: LayoutModel, statusOptions: [FilterOption], text: String, country: String, source: String, rows: [LibraryRow], loaded: Bool,
        pager: Pager?, orderSwitch: OrderSwitch = .none, back: String = SiteURL.libraries.path, timeHeading: String = "Waiting"
    ) {
        self.timeHeading = timeHeading
        self.layout = layout
        self.statusOptions = statusOptions
        self.text = text
        self.country = country
        self.source = source
        self.rows = rows
        self.loaded = loaded
        self.pager = pager
        self.orderSwitch = orderSwitch
        isEmpty = loaded && rows.isEmpty
        hasRows = !rows.isEmpty
        hasWaitingRows = rows.contains { $0.isWaiting }
        self.back = back
    }

    /// The page size the list was asked for, when not the standard one: filtering keeps it.
    var pageSize = ""

    func child(named key: String) -> Any? {
        switch key {
        case "pageSize": pageSize
        case "hasPageSize": !pageSize.isEmpty
        case "layout": layout
        case "statusOptions": statusOptions
        case "text": text
        case "country": country
        case "source": source
        case "rows": rows
        case "loaded": loaded
        case "pager": pager
        case "orderSwitch": orderSwitch
        case "isEmpty": isEmpty
        case "hasRows": hasRows
        case "hasWaitingRows": hasWaitingRows
        case "presetReasons": presetReasons
        case "back": back
        case "filterURL": filterURL
        case "bulkURL": bulkURL
        case "decisionKey": decisionKey
        case "timeHeading": timeHeading
        case "bulkError": bulkError
        case "hasBulkError": !bulkError.isEmpty
        case "bulkReasons": presetReasons.map { FilterOption(value: $0, label: $0, selected: $0 == bulkPreset) }
        case "bulkRejects": bulkDecision == "reject"
        case "bulkReason": bulkReason
        default: nil
        }
    }
}

/// One library in a queue. Rows are the hot path of every queue page, so they answer
/// template lookups directly (`MustacheParent`) instead of through reflection.
struct LibraryRow: MustacheParent {
    let slug: String
    let name: String
    let isUnnamed: Bool
    let thumbnailURL: String
    let place: String
    let submitter: String
    let age: String
    let createdAt: String
    let createdUTC: String
    let status: String
    /// `slug|status seen|name`: what a bulk selection posts for this row.
    let selection: String
    private(set) var canApprove: Bool
    /// The library's page, opened from this list (its filters and order ride along).
    var libraryURL: String
    let decideURL: String
    /// What became of the viewer's decision on it, when just made.
    private(set) var outcome = RowOutcome.none
    /// Another approved or pending library is within 50 m or has its name in its city.
    let hasDuplicate: Bool
    /// Who is reviewing it, or the "I'm reviewing this" button.
    var claim = ClaimBadge.hidden
    /// A pending library past or near the queue's target (On call: alerts).
    let mark: QueueStandingMark
    /// Waiting for a decision: the row offers Approve and Reject…; a decided row offers Review… only.
    let isWaiting: Bool
    /// A decision recorded but not yet sent (by anyone): shown instead of the decision controls.
    private(set) var queued = QueuedDecisionNote.none
    /// Who decided a decided row, when and why.
    var decidedNote = DecidedNote.none

    init(_ library: MirrorLibrary, hasDuplicate: Bool, targets: QueueTargets, now: Date) {
        slug = library.slug
        libraryURL = SiteURL.library(library.slug).path
        decideURL = SiteURL.libraryDecide(library.slug).path
        isUnnamed = LibraryText.isBlank(library.name)
        name = LibraryText.displayName(library.name)
        thumbnailURL = library.thumbnailUrl
        place = LibraryText.place(address: library.address, city: library.city, country: library.country)
        submitter = library.submitterUsername ?? "imported"
        age = TimeText.age(of: library.createdAt, now: now)
        createdAt = TimeText.iso(library.createdAt)
        createdUTC = TimeText.utc(library.createdAt)
        status = library.status.rawValue
        selection = "\(library.slug)|\(library.status.rawValue)|\(library.name.replacingOccurrences(of: "|", with: " "))"
        // Reversing a decision is confirmed on the library's page, never one click in a list.
        canApprove = library.status == .pending
        isWaiting = library.status == .pending
        self.hasDuplicate = hasDuplicate
        mark = library.status == .pending ? QueueStandingMark(.libraries, createdAt: library.createdAt, targets: targets, now: now) : .none
    }

    init(_ library: ModerationLibrary, now: Date) {
        slug = library.slug
        libraryURL = SiteURL.library(library.slug).path
        decideURL = SiteURL.libraryDecide(library.slug).path
        isUnnamed = LibraryText.isBlank(library.name)
        name = LibraryText.displayName(library.name)
        thumbnailURL = library.thumbnailUrl
        place = LibraryText.place(address: library.address, city: library.city, country: library.country)
        submitter = library.createdBy?.username ?? "imported"
        age = TimeText.age(of: library.createdAt, now: now)
        createdAt = TimeText.iso(library.createdAt)
        createdUTC = TimeText.utc(library.createdAt)
        status = library.status
        selection = "\(library.slug)|\(library.status)|\(library.name.replacingOccurrences(of: "|", with: " "))"
        // A status this console does not know is shown, never decided on.
        canApprove = library.moderationStatus == .pending
        isWaiting = library.moderationStatus == .pending
        hasDuplicate = false
        mark = .none
    }

    /// The row of an item with a decision on its way: the note instead of the decision controls.
    mutating func queuedDecision(_ note: QueuedDecisionNote) {
        queued = note
        canApprove = false
        claim = .hidden
    }

    /// The row of an item the viewer just decided: its outcome instead of the decision controls.
    mutating func decided(_ outcome: RowOutcome) {
        self.outcome = outcome
        canApprove = false
        claim = .hidden
    }

    func child(named key: String) -> Any? {
        switch key {
        case "hasDuplicate": hasDuplicate
        case "outcome": outcome
        case "isDecided": outcome.isShown
        case "claim": claim
        case "slug": slug
        case "name": name
        case "isUnnamed": isUnnamed
        case "hasThumbnail": !thumbnailURL.isEmpty
        case "thumbnailURL": thumbnailURL
        case "place": place
        case "submitter": submitter
        case "age": age
        case "createdAt": createdAt
        case "createdUTC": createdUTC
        case "status": status
        case "selection": selection
        case "canApprove": canApprove
        case "libraryURL": libraryURL
        case "decideURL": decideURL
        case "mark": mark
        case "isWaiting": isWaiting
        case "queued": queued
        case "isQueued": queued.isShown
        case "decidedNote": decidedNote
        default: nil
        }
    }
}

/// A library's detail page, with possible duplicates nearby.
struct LibraryDetailPage: MustacheParent {
    struct Field: MustacheParent {
        let label: String
        let value: String

        init(label: String, value: String) {
            self.label = label
            self.value = value.isEmpty ? "—" : value
        }

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "value": value
            default: nil
            }
        }
    }

    struct Duplicate: MustacheParent {
        let name: String
        let slug: String
        let place: String
        let distance: String
        let isClose: Bool
        /// Farther than 50 m, but with the same name in the same city.
        let isSameName: Bool
        let status: String
        let libraryURL: String
        /// Its photo, to compare side by side with the submission's; "" when it has none.
        var photoURL = ""
        /// "3 d ago": when it was submitted.
        var age = ""

        func child(named key: String) -> Any? {
            switch key {
            case "name": name
            case "slug": slug
            case "place": place
            case "distance": distance
            case "isClose": isClose
            case "isSameName": isSameName
            case "status": status
            case "libraryURL": libraryURL
            case "photoURL": photoURL
            case "hasPhoto": !photoURL.isEmpty
            case "age": age
            default: nil
            }
        }
    }

    /// The list this page was opened from, and its neighbours there.
    struct QueueLinks: MustacheParent {
        /// "pending libraries, oldest first".
        let label: String
        let listURL: String
        let previousURL: String
        let hasPrevious: Bool
        let nextURL: String
        let hasNext: Bool
        /// What the decision forms send back as `queue`, so a decision leads to the next one.
        let formValue: String
        /// This page, with the list it was opened from.
        let hereURL: String

        init(queue: LibraryQueueContext, previous: String?, next: String?, here: String) {
            let status = queue.filter.status == .all ? "all" : queue.filter.status.rawValue
            let filtered = queue.filter.text != nil || queue.filter.country != nil || queue.filter.source != nil
            label = "\(status) libraries\(filtered ? " (filtered)" : ""), \(queue.order.label.lowercased())"
            listURL = queue.listPath
            previousURL = previous ?? ""
            hasPrevious = previous != nil
            nextURL = next ?? ""
            hasNext = next != nil
            formValue = queue.formValue
            hereURL = here
        }

        static let none = QueueLinks(queue: LibraryQueueContext(ListQuery(query: nil)), previous: nil, next: nil, here: SiteURL.libraries.path)

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "listURL": listURL
            case "previousURL": previousURL
            case "hasPrevious": hasPrevious
            case "nextURL": nextURL
            case "hasNext": hasNext
            case "formValue": formValue
            case "hereURL": hereURL
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let loaded: Bool
    let name: String
    let isUnnamed: Bool
    let slug: String
    /// Where this page leads: back to its list, previous, next.
    var queue = QueueLinks.none
    /// Where this library's decision forms post; "" when the library could not be loaded.
    let decideURL: String
    let photoURL: String?
    let status: String
    /// The backend's `rejection_reason`; "" when there is none.
    let rejectionReason: String
    /// Rejected now, with a reason to show as the current decision.
    let isRejectedWithReason: Bool
    /// Not rejected now, but still carrying the reason of an earlier rejection: the backend
    /// keeps it when a library leaves `rejected`, so it must not read as the current state.
    let wasRejectedBefore: Bool
    let description: String
    /// Who reads a rejection's reason: its submitter, or nobody for an imported library.
    let reasonReader: String
    let fields: [Field]
    let coordinates: String
    let mapURL: String
    let duplicates: [Duplicate]
    let duplicatesChecked: Bool
    let hasDuplicates: Bool
    let hasCloseDuplicate: Bool
    /// The "Possible duplicate" warning: only while the library waits for a decision (an
    /// approved or rejected one has had its comparison; the candidates are still listed).
    let warnsOfDuplicate: Bool
    /// The submission's own place and age, for its side of the comparison.
    let place: String
    let age: String
    /// A fresh idempotency key per rendered form: posting the same form twice records one decision.
    let decisionKey = UUID().uuidString
    let presetReasons = DecisionController.presetReasons
    /// The rejection form as it was sent when it needs fixing: the error beside its field, what was typed kept.
    var rejection = RejectionFormState.empty
    private(set) var canApprove: Bool
    private(set) var canReject: Bool
    private(set) var canReturnToPending: Bool
    /// Approving is a reversal of a rejection here: the button says it asks first.
    let approveReverses: Bool
    /// A decision recorded but not yet sent: shown instead of the decision forms.
    private(set) var queued = QueuedDecisionNote.none
    /// Who made it what it is now, when and why (not for a waiting library).
    var decided = DecidedNote.none
    /// Who is reviewing it, or the "I'm reviewing this" button.
    var claim = ClaimBadge.hidden
    /// Pending past or near the queue's target (On call: alerts).
    let mark: QueueStandingMark

    init(layout: LayoutModel, library: ModerationLibrary, duplicates others: [MirrorLibrary], targets: QueueTargets, now: Date) {
        self.layout = layout
        loaded = true
        name = LibraryText.displayName(library.name)
        isUnnamed = LibraryText.isBlank(library.name)
        slug = library.slug
        decideURL = SiteURL.libraryDecide(library.slug).path
        photoURL = library.photoUrl.isEmpty ? nil : library.photoUrl
        status = library.status
        rejectionReason = library.rejectionReason
        let current = library.moderationStatus
        isRejectedWithReason = current == .rejected && !library.rejectionReason.isEmpty
        wasRejectedBefore = current != .rejected && !library.rejectionReason.isEmpty
        description = library.description.isEmpty ? "(none)" : library.description
        reasonReader = library.createdBy.map { "its submitter, \($0.username), reads it" }
            ?? "nobody is told: it was imported and has no submitter; the reason is kept with the library"
        func optional(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
        fields = [
            Field(label: "Address", value: library.address.isEmpty ? "(none given)" : library.address),
            Field(label: "City", value: library.city), Field(label: "Country", value: library.country),
            Field(label: "Postal code", value: library.postalCode),
            Field(label: "Submitted by", value: library.createdBy?.username ?? "imported (no submitter)"),
            Field(label: "Submitted", value: "\(TimeText.utc(library.createdAt)) (\(TimeText.age(of: library.createdAt, now: now)))"),
            Field(label: "Source", value: library.source), Field(label: "Operator", value: library._operator),
            Field(label: "Brand", value: library.brand), Field(label: "Website", value: library.website),
            Field(label: "Contact", value: library.contact),
            Field(label: "Wheelchair accessible", value: library.wheelchairAccessible.isEmpty ? "unknown" : library.wheelchairAccessible),
            Field(label: "Capacity", value: library.capacity.map { "\($0) books" } ?? "unknown"),
            Field(label: "Indoor", value: optional(library.isIndoor)), Field(label: "Lit at night", value: optional(library.isLit)),
            Field(label: "Slug", value: library.slug), Field(label: "Backend id", value: String(library.id)),
        ]
        coordinates = String(format: "%.6f, %.6f", library.lat, library.lng)
        mapURL = String(format: "https://www.openstreetmap.org/?mlat=%.6f&mlon=%.6f#map=19/%.6f/%.6f", library.lat, library.lng, library.lat, library.lng)
        duplicatesChecked = true
        duplicates = others.filter { $0.id != library.id }.map { other in
            let metres = GreatCircle.metres(library.lat, library.lng, other.lat, other.lng)
            let isClose = metres <= ModerationStore.duplicateMetres
            var duplicate = Duplicate(
                name: LibraryText.displayName(other.name), slug: other.slug,
                place: LibraryText.place(address: other.address, city: other.city, country: other.country),
                distance: Distance.text(metres), isClose: isClose, isSameName: !isClose, status: other.status.rawValue,
                libraryURL: SiteURL.library(other.slug).path)
            duplicate.photoURL = other.photoUrl.isEmpty ? other.thumbnailUrl : other.photoUrl
            duplicate.age = TimeText.age(of: other.createdAt, now: now)
            return duplicate
        }
        hasDuplicates = !duplicates.isEmpty
        hasCloseDuplicate = duplicates.contains { $0.isClose }
        warnsOfDuplicate = hasDuplicates && current == .pending
        place = LibraryText.place(address: library.address, city: library.city, country: library.country)
        age = TimeText.age(of: library.createdAt, now: now)
        // A status this console does not know is shown, never decided on.
        canApprove = current.map { $0 != .approved } ?? false
        canReject = current.map { $0 != .rejected } ?? false
        canReturnToPending = current.map { $0 != .pending } ?? false
        approveReverses = current == .rejected
        mark = current == .pending ? QueueStandingMark(.libraries, createdAt: library.createdAt, targets: targets, now: now) : .none
    }

    /// The page when the library could not be loaded at all (backend down or limiting).
    static func unavailable(layout: LayoutModel) -> LibraryDetailPage {
        LibraryDetailPage(layout: layout)
    }

    private init(layout: LayoutModel) {
        self.layout = layout
        loaded = false
        name = "Library"
        isUnnamed = false
        slug = ""
        decideURL = ""
        photoURL = nil
        status = ""
        rejectionReason = ""
        isRejectedWithReason = false
        wasRejectedBefore = false
        description = ""
        reasonReader = ""
        fields = []
        coordinates = ""
        mapURL = ""
        duplicates = []
        duplicatesChecked = false
        hasDuplicates = false
        hasCloseDuplicate = false
        warnsOfDuplicate = false
        place = ""
        age = ""
        canApprove = false
        canReject = false
        canReturnToPending = false
        approveReverses = false
        mark = .none
    }

    /// A decision on its way: no decision form until it is sent.
    mutating func queuedDecision(_ note: QueuedDecisionNote) {
        queued = note
        canApprove = false
        canReject = false
        canReturnToPending = false
        claim = .hidden
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "loaded": loaded
        case "name": name
        case "isUnnamed": isUnnamed
        case "slug": slug
        case "queue": queue
        case "decideURL": decideURL
        case "photoURL": photoURL
        case "status": status
        case "rejectionReason": rejectionReason
        case "isRejectedWithReason": isRejectedWithReason
        case "wasRejectedBefore": wasRejectedBefore
        case "description": description
        case "reasonReader": reasonReader
        case "fields": fields
        case "coordinates": coordinates
        case "mapURL": mapURL
        case "duplicates": duplicates
        case "duplicatesChecked": duplicatesChecked
        case "hasDuplicates": hasDuplicates
        case "hasCloseDuplicate": hasCloseDuplicate
        case "warnsOfDuplicate": warnsOfDuplicate
        case "place": place
        case "age": age
        case "hasPhoto": photoURL != nil
        case "decisionKey": decisionKey
        case "presetReasons": presetReasons
        case "canApprove": canApprove
        case "canReject": canReject
        case "canReturnToPending": canReturnToPending
        case "approveReverses": approveReverses
        case "rejection": rejection
        case "queued": queued
        case "isQueued": queued.isShown
        case "decided": decided
        case "claim": claim
        case "mark": mark
        default: nil
        }
    }
}
