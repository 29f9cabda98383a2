import ModerationStore
import ModerationVocabulary

/// The reports list a moderator is working through: its status, reason and order. Like
/// `LibraryQueueContext`, it travels in the address of each report's page opened from the
/// list and in its decision forms, so previous, next and the report after a decision keep it.
struct ReportQueueContext: Equatable {
    var status: ReportStatusFilter
    var reason: ReportReason?
    var order: QueueOrder
    /// Whether the address named an order other than the status's usual one.
    var orderIsChosen: Bool
    var pageSize: Int
    /// The list's page the moderator was on: "back to the list" returns there, not to page 1.
    var page = 1
    /// What the address asked for that the list does not know, each a sentence saying so.
    var ignoredFilters: [String] = []

    init(_ query: ListQuery) {
        status = query.choice("status", default: ReportStatusFilter.open)
        let reason = query.text("reason", maxLength: 30).flatMap(ReportReason.init(rawValue:))
        self.reason = reason
        let standard = QueueOrder.standard(listsWaitingItems: status == .open)
        let chosen = query.chosenOrder()
        order = chosen ?? standard
        orderIsChosen = order != standard
        pageSize = query.page.size
        page = query.page.number
        ignoredFilters = [
            query.ignored("status", isNot: "a status", so: "open reports are shown") { ReportStatusFilter(rawValue: $0) != nil },
            query.ignored("reason", isNot: "a report reason", so: "reports of every reason are shown") { _ in reason != nil },
            query.ignored("order", isNot: "an order this list offers", so: "it is in its usual order") { _ in chosen != nil },
        ].compactMap { $0 }
    }

    /// The context a form sent back (`queue=<query string>`); `nil` when it sent none.
    init?(formValue: String?) {
        guard let formValue else { return nil }
        self.init(ListQuery(query: String(formValue.prefix(1000))))
    }

    /// The list's filters as query items, the order only when chosen; empty ones drop out.
    var filterItems: [(name: String, value: String?)] {
        [
            ("status", status.rawValue), ("reason", reason?.rawValue), ("order", orderIsChosen ? order.rawValue : nil),
            ("page_size", pageSize == ListQuery.defaultPageSize ? nil : String(pageSize)), ("page", page > 1 ? String(page) : nil),
        ]
    }

    /// What the mirror filters by: `nil` for every status.
    var mirrorStatus: ReportStatus? { ReportStatus(rawValue: status.rawValue) }

    /// The query string a page's forms carry (`status=open&reason=damaged`).
    var formValue: String { String(listPath.drop { $0 != "?" }.dropFirst()) }

    /// The list itself, at the page it was on.
    var listPath: String { SiteURL.reports.path(query: filterItems) }

    /// A report's page opened from this list.
    func detailPath(id: Int) -> String { SiteURL.report(id).path(query: filterItems) }
}
