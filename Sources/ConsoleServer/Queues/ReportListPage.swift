import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The report queue: filters by status and reason, and one page of reports.
struct ReportListPage: MustacheParent {
    var frame: QueueListFrame
    let reasonOptions: [FilterOption]
    let rows: [ReportRow]

    init(layout: LayoutModel, statusOptions: [FilterOption], reasonOptions: [FilterOption], rows: [ReportRow], loaded: Bool, pager: Pager?) {
        frame = QueueListFrame(layout: layout, statusOptions: statusOptions, loaded: loaded, pager: pager, itemCount: rows.count, list: .reports)
        self.reasonOptions = reasonOptions
        self.rows = rows
    }

    func child(named key: String) -> Any? {
        switch key {
        case "reasonOptions": reasonOptions
        case "filtersText": frame.filtersText(others: reasonOptions.filter { $0.selected && !$0.value.isEmpty }.map(\.label))
        case "rows": rows
        default: frame.child(named: key)
        }
    }
}
