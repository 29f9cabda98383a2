import Foundation
import Mustache

/// A bar chart over one of the summary's tables. Drawn once, at the phone's width, which fits
/// the summary's columns on a screen and a printed page alike: one size shows, and one prints.
struct SummaryChart: MustacheParent {
    let svg: String

    init(id: String, title: String, rows: [AuditSummaryPage.CountRow]) {
        let description = rows.map { "\($0.key): \($0.decisions)" }.joined(separator: ", ")
        svg = BarChart.svg(
            id: id, title: title, description: description, bars: rows.map { ($0.key, Double($0.decisions)) }, emptyMessage: "None in this range",
            frame: .narrow, labelsAbove: true)
    }

    func child(named key: String) -> Any? {
        switch key {
        case "svg": svg
        default: nil
        }
    }
}
