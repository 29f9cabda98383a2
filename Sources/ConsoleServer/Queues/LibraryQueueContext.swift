import BookCornersAPI
import ModerationStore
import ModerationVocabulary

/// The libraries list a moderator is working through: its filters and its order. It travels
/// in the address of every library page opened from the list (and in its decision forms),
/// so "previous", "next", the item after a decision and "back to the list" all keep them,
/// without JavaScript and without anything stored.
struct LibraryQueueContext: Equatable {
    var filter: LibraryFilter
    var order: QueueOrder
    /// Whether the address named the order; a default one is left out of addresses, so
    /// switching the status filter also switches to that status's usual order.
    var orderIsChosen: Bool
    var pageSize: Int
    /// The list's page the moderator was on: "back to the list" returns there, not to page 1.
    var page = 1
    /// Only libraries with this reason to look (`reason=duplicate`, or `strong` for any strong one).
    var concern: String?
    /// What the address asked for that the list does not know, each a sentence saying so.
    var ignoredFilters: [String] = []

    /// What `reason=` may name: any strong reason, or one kind.
    static let concernChoices = ["strong"] + LibraryConcern.Kind.allCases.map(\.rawValue)

    init(_ query: ListQuery) {
        filter = LibraryFilter(
            status: query.choice("status", default: StatusFilter.pending), text: query.text("q", maxLength: 200),
            country: query.country, source: query.text("source", maxLength: 100))
        let standard = QueueOrder.standard(listsWaitingItems: filter.status == .pending)
        let chosen = query.chosenOrder(offered: Self.orders(for: filter.status))
        order = chosen ?? standard
        orderIsChosen = chosen != nil && chosen != standard
        pageSize = query.page.size
        page = query.page.number
        concern = query.text("reason", maxLength: 40).flatMap { Self.concernChoices.contains($0) ? $0 : nil }
        ignoredFilters = [
            query.ignored("status", isNot: "a status", so: "waiting libraries are shown") { StatusFilter(rawValue: $0) != nil },
            query.ignored("reason", isNot: "a reason to look", so: "the list is not narrowed by reason") { _ in concern != nil },
            query.ignored("country", isNot: "a two-letter country code", so: "every country is shown") { _ in query.country != nil },
            query.ignored("order", isNot: "an order this list offers", so: "it is in its usual order") { _ in chosen != nil },
        ].compactMap { $0 }
    }

    /// The orders a list of `status` offers: only waiting libraries have reasons to rank by.
    static func orders(for status: StatusFilter) -> [QueueOrder] {
        status == .pending ? [.oldest, .newest, .needsALookFirst] : QueueOrder.byTime
    }

    /// The context a form sent back (`queue=<query string>`); `nil` when it sent none.
    init?(formValue: String?) {
        guard let formValue else { return nil }
        self.init(ListQuery(query: String(formValue.prefix(1000))))
    }

    /// The list's filters as query items, the order only when chosen; empty ones drop out.
    var filterItems: [(name: String, value: String?)] {
        [
            ("status", filter.status.rawValue), ("q", filter.text), ("country", filter.country), ("source", filter.source), ("reason", concern),
            ("order", orderIsChosen ? order.rawValue : nil), ("page_size", pageSize == ListQuery.defaultPageSize ? nil : String(pageSize)),
            ("page", page > 1 ? String(page) : nil),
        ]
    }

    /// The same list in the other order, for the switch above it: from its first page.
    func with(order: QueueOrder) -> LibraryQueueContext {
        var other = self
        other.page = 1
        other.order = order
        other.orderIsChosen = order != QueueOrder.standard(listsWaitingItems: filter.status == .pending)
        return other
    }

    /// The query string a page's forms carry (`status=pending&order=newest`).
    var formValue: String {
        String(listPath.drop { $0 != "?" }.dropFirst())
    }

    /// The list itself, at the page it was on.
    var listPath: String { SiteURL.libraries.path(query: filterItems) }

    /// A library's page opened from this list.
    func detailPath(slug: String) -> String { detailPaths()(slug) }

    /// `detailPath(slug:)` for every row of a page: the list's query is encoded once.
    func detailPaths() -> (_ slug: String) -> String {
        let query = SiteURL.query(filterItems)
        return { SiteURL.library($0).path + query }
    }

    /// What the mirror filters by.
    var mirrorQuery: MirrorLibraryQuery {
        MirrorLibraryQuery(
            status: LibraryStatus(rawValue: filter.status.rawValue), text: filter.text, country: filter.country, source: filter.source,
            concern: concern.map { $0 == "strong" ? .anyStrong : .kind($0) })
    }
}
