import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The report queue: filters by status and reason, and one page of reports.
struct ReportListPage: MustacheParent {
    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let reasonOptions: [FilterOption]
    let rows: [ReportRow]
    let loaded: Bool
    let pager: Pager?
    let isEmpty: Bool
    /// Where decisions and claims return: this list as it was asked for.
    var back: String
    var orderSwitch = OrderSwitch.none
    let filterURL = SiteURL.reports.path

    init(layout: LayoutModel, statusOptions: [FilterOption], reasonOptions: [FilterOption], rows: [ReportRow], loaded: Bool, pager: Pager?) {
        self.layout = layout
        self.statusOptions = statusOptions
        self.reasonOptions = reasonOptions
        self.rows = rows
        self.loaded = loaded
        self.pager = pager
        isEmpty = loaded && rows.isEmpty
        back = SiteURL.reports.path
    }

    /// The page size the list was asked for, when not the standard one: filtering keeps it.
    var pageSize = ""

    func child(named key: String) -> Any? {
        switch key {
        case "pageSize": pageSize
        case "hasPageSize": !pageSize.isEmpty
        case "layout": layout
        case "statusOptions": statusOptions
        case "reasonOptions": reasonOptions
        case "rows": rows
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
