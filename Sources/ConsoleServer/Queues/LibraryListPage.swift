import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The libraries queue page.
struct LibraryListPage: MustacheParent {
    var frame: QueueListFrame
    let text: String
    let country: String
    let source: String
    private(set) var rows: [LibraryRow]
    let hasRows: Bool
    /// Whether any row can be selected: bulk decisions are for waiting libraries only.
    let hasWaitingRows: Bool
    let presetReasons = DecisionController.presetReasons
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
    /// Said above waiting rows until the mirror has read every library once (`LibraryConcerns.incompleteText`).
    var reasonsIncomplete = ""
    /// What the list says when nothing matches.
    var emptyText = "No libraries match these filters."
    /// The filter by reason to look: any, any strong one, or one kind.
    var reasonOptions: [FilterOption] = LibraryListPage.reasonOptions(chosen: nil)

    /// The choices of the filter by reason, `chosen` selected.
    static func reasonOptions(chosen: String?) -> [FilterOption] {
        FilterOption.choices(LibraryQueueContext.concernChoices, selected: chosen, any: "Any reason or none") { value in
            LibraryConcern.Kind(rawValue: value)?.label ?? "Any strong reason"
        }
    }

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
        frame = QueueListFrame(
            layout: layout, statusOptions: statusOptions, loaded: loaded, pager: pager, itemCount: rows.count, list: .libraries,
            orderSwitch: orderSwitch, back: back)
        self.timeHeading = timeHeading
        self.text = text
        self.country = country
        self.source = source
        self.rows = rows
        hasRows = !rows.isEmpty
        hasWaitingRows = rows.contains { $0.isWaiting }
    }

    /// Shows the bulk form as the moderator left it: the same waiting rows ticked, the same
    /// decision and reason (after a review's Cancel, or a refusal).
    mutating func keep(_ draft: BulkDraft) {
        let ticked = Set(draft.slugs)
        for index in rows.indices where rows[index].isWaiting && ticked.contains(rows[index].slug) {
            rows[index].isSelected = true
        }
        bulkDecision = draft.decision
        bulkPreset = draft.preset
        bulkReason = draft.reason
    }

    /// The filters set besides the status, as the folded filters name them.
    private var otherFiltersSet: [String] {
        let reason = reasonOptions.filter { $0.selected && !$0.value.isEmpty }.map(\.label)
        return [text.isEmpty ? "" : "“\(text)”", country.uppercased(), source] + reason
    }

    func child(named key: String) -> Any? {
        switch key {
        case "filtersText": frame.filtersText(others: otherFiltersSet)
        case "text": text
        case "country": country
        case "source": source
        case "rows": rows
        case "hasRows": hasRows
        case "hasWaitingRows": hasWaitingRows
        case "presetReasons": presetReasons
        case "bulkURL": bulkURL
        case "decisionKey": decisionKey
        case "timeHeading": timeHeading
        case "bulkError": bulkError
        case "hasBulkError": !bulkError.isEmpty
        case "bulkReasons": presetReasons.map { FilterOption(value: $0, label: $0, selected: $0 == bulkPreset) }
        case "bulkRejects": bulkDecision == "reject"
        case "bulkReason": bulkReason
        case "reasonOptions": reasonOptions
        case "emptyText": emptyText
        case "reasonsIncomplete": reasonsIncomplete
        case "hasReasonsIncomplete": !reasonsIncomplete.isEmpty
        case "reasonsURL": SiteURL.concernFigures.path
        default: frame.child(named: key)
        }
    }
}
