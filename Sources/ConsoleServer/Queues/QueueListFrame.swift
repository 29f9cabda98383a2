import Mustache

/// What every queue's list page has around its items: the frame, the status filter, paging
/// and order, and where decisions return. Each list's page model answers its own names and
/// leaves these to the frame.
struct QueueListFrame: MustacheParent {
    let layout: LayoutModel
    let statusOptions: [FilterOption]
    /// Whether the mirror has been read at all: before, the list says it is still loading.
    let loaded: Bool
    let pager: Pager?
    /// Read, and nothing matches.
    let isEmpty: Bool
    /// Where the filter form sends.
    let filterURL: String
    /// Where decisions and claims return: this list as it was asked for.
    var back: String
    var orderSwitch: OrderSwitch
    /// The page size the list was asked for, when not the standard one: filtering keeps it.
    var pageSize = ""
    /// Filters in the address the list did not know and ignored, each a sentence saying so.
    var ignoredFilters: [String] = []

    init(
        layout: LayoutModel, statusOptions: [FilterOption], loaded: Bool, pager: Pager?, itemCount: Int, list: SiteURL,
        orderSwitch: OrderSwitch = .none, back: String? = nil
    ) {
        self.layout = layout
        self.statusOptions = statusOptions
        self.loaded = loaded
        self.pager = pager
        isEmpty = loaded && itemCount == 0
        filterURL = list.path
        self.orderSwitch = orderSwitch
        self.back = back ?? list.path
    }

    /// Says above the list what its address asked for that it could not show: `ignored` (values
    /// of its filters it does not know), names it reads nothing of (`names` are those it reads,
    /// with any starting with one of `prefixes`), any of `names` given more than once, and a
    /// page or page size it does not have (`shownPage` is the page shown).
    mutating func say(ignored: [String], reading names: [String], prefixes: [String] = [], of query: ListQuery, shownPage: Int) {
        ignoredFilters =
            ignored + [query.unknown(names, knownPrefixes: prefixes)].compactMap { $0 } + query.repeated(names) + query.garbledNotes(among: names)
            + query.pagingNotes(shownPage: shownPage)
    }

    /// Keeps the page size `query` asked for when it is not the standard one.
    mutating func keepPageSize(of query: ListQuery) {
        pageSize = query.page.size == ListQuery.defaultPageSize ? "" : String(query.page.size)
    }

    /// What the folded filters say on a phone: "Filters · Pending", then each other filter
    /// that is set (`others`, empty ones left out), so a narrowed list never passes for the whole.
    func filtersText(others: [String] = []) -> String {
        let status = statusOptions.filter(\.selected).map(\.label)
        return (["Filters"] + status + others.filter { !$0.isEmpty }).joined(separator: " · ")
    }

    func child(named key: String) -> Any? {
        switch key {
        case "filtersText": filtersText()
        case "ignoredFilters": ignoredFilters
        case "hasIgnoredFilters": !ignoredFilters.isEmpty
        case "pageSize": pageSize
        case "hasPageSize": !pageSize.isEmpty
        case "layout": layout
        case "statusOptions": statusOptions
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
