import Foundation
import ModerationStore
import Mustache

/// The audit log: its filters, one page of entries, its exports and the chain's Verify.
struct AuditListPage: MustacheParent {
    let layout: LayoutModel
    let staffOptions: [FilterOption]
    let actionOptions: [FilterOption]
    let outcomeOptions: [FilterOption]
    let q: String
    let from: String
    let datePattern = TeamTimeInput.datePattern
    let to: String
    let problems: [String]
    let matching: Int
    let rows: [AuditRow]
    let isEmpty: Bool
    /// "Rome time", "UTC": the clock of the When column.
    let clockName: String
    let newerHref: String?
    let olderHref: String?
    let newestHref: String?
    let csvHref: String
    /// The same CSV with a byte-order mark, for spreadsheet programs.
    let spreadsheetHref: String
    let ndjsonHref: String
    let summaryHref: String
    let verifyAction: String
    let verdict: AuditVerdictText?
    /// The filter form's address, and the link that clears every filter.
    let filterURL = SiteURL.audit.path

    /// "Filters", or "Filters · 2 set": the phone's folded filters say whether any apply.
    var filtersText: String {
        let chosen = [staffOptions, actionOptions, outcomeOptions].filter { options in options.contains { $0.selected && !$0.value.isEmpty } }.count
        let set = chosen + [q, from, to].filter { !$0.isEmpty }.count
        return set == 0 ? "Filters" : "Filters · \(set) set"
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "staffOptions": staffOptions
        case "actionOptions": actionOptions
        case "outcomeOptions": outcomeOptions
        case "q": q
        case "filtersText": filtersText
        case "filtersOpen": !problems.isEmpty
        case "from": from
        case "datePattern": datePattern
        case "to": to
        case "problems": problems
        case "matching": matching
        case "matchingText": CountText.of(matching, "matching entry", "matching entries")
        case "rows": rows
        case "isEmpty": isEmpty
        case "clockName": clockName
        case "newerHref": newerHref
        case "olderHref": olderHref
        case "newestHref": newestHref
        case "csvHref": csvHref
        case "spreadsheetHref": spreadsheetHref
        case "ndjsonHref": ndjsonHref
        case "summaryHref": summaryHref
        case "verifyAction": verifyAction
        case "verdict": verdict
        case "filterURL": filterURL
        default: nil
        }
    }
}
