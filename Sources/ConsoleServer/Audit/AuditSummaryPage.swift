import Foundation
import ModerationStore
import Mustache

/// The audit log's summary over a range, printed or saved as PDF for someone who never opens the
/// console: whose report (Book Corners, made by whom), the real dates, decisions by kind, by
/// reason and by staff member, and how long each queue waited. Only what decided an item counts
/// (the controller leaves out notes, take-overs and decisions that were not applied); no hashes
/// or outcome codes, which mean nothing on paper.
struct AuditSummaryPage: MustacheParent {
    struct CountRow: MustacheParent {
        let key: String
        let decisions: Int
        let share: String

        func child(named key: String) -> Any? {
            switch key {
            case "key": self.key
            case "decisions": decisions
            case "share": share
            default: nil
            }
        }
    }

    struct QueueRow: MustacheParent {
        let queue: String
        let decisions: Int
        let median: String
        let p90: String

        func child(named key: String) -> Any? {
            switch key {
            case "queue": queue
            case "decisions": decisions
            case "median": median
            case "p90": p90
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let range: String
    let problems: [String]
    let total: Int
    /// "1 decision", "12 decisions".
    let totalText: String
    let byStaff: [CountRow]
    let byAction: [CountRow]
    /// Rejections by reason: the presets by their words, anything else as one "other" group.
    let byReason: [CountRow]
    /// The same three counts drawn as bars above their tables.
    let staffChart: SummaryChart
    let actionChart: SummaryChart
    let reasonChart: SummaryChart
    let queues: [QueueRow]
    let hasQueues: Bool
    let isEmpty: Bool
    let csvHref: String
    let backHref: String
    let generatedAt: String
    /// Who made the copy: a reader away from the console can ask them.
    let madeBy: String
    /// "Times in Rome time": which clock the report's times are on, for its title.
    let clockName: String
    /// The footer a printed copy carries: whether the audit log was found as recorded when it was made.
    let chainNote: String

    init(
        layout: LayoutModel, range: String, problems: [String], summary: AuditSummary, csvHref: String, backHref: String, generatedAt: String,
        madeBy: String, clockName: String, chain: AuditChainVerdict
    ) {
        self.layout = layout
        self.range = range
        self.problems = problems
        total = summary.total
        totalText = CountText.of(summary.total, "decision", "decisions")
        func rows(_ counts: [AuditSummary.Count], named: (String) -> String = { $0 }) -> [CountRow] {
            counts.map {
                CountRow(key: named($0.key), decisions: $0.decisions, share: "\(Int((Double($0.decisions) * 100 / Double(max(summary.total, 1))).rounded())) %")
            }
        }
        byStaff = rows(summary.byStaff)
        byAction = rows(summary.byAction, named: AuditActionName.of)
        byReason = rows(summary.byReason)
        staffChart = SummaryChart(id: "summary-staff", title: "Decisions by staff member", rows: byStaff)
        actionChart = SummaryChart(id: "summary-kind", title: "Decisions by kind", rows: byAction)
        reasonChart = SummaryChart(id: "summary-reason", title: "Rejections by reason", rows: byReason)
        self.clockName = clockName
        self.madeBy = madeBy
        chainNote =
            switch chain {
            case .intact(let entries, _):
                "The console's audit log (\(CountText.of(entries, "entry", "entries"))) was checked when this was made: no entry had been changed, removed or reordered."
            case .broken(let entryID, _):
                "The console's audit log was checked when this was made and entry \(entryID) is not as it was recorded: ask the console's maintainers before relying on these figures."
            }
        queues = summary.queues.map {
            QueueRow(
                queue: Self.queueNames[$0.queue] ?? $0.queue, decisions: $0.decisions, median: DurationText.hours($0.medianSeconds),
                p90: DurationText.hours($0.p90Seconds))
        }
        hasQueues = !queues.isEmpty
        isEmpty = summary.total == 0
        self.csvHref = csvHref
        self.backHref = backHref
        self.generatedAt = generatedAt
    }

    /// The queues by what they hold, for a reader who does not know the console's words.
    static let queueNames = ["library": "New libraries", "report": "Reports", "photo": "Proposed photos"]

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "range": range
        case "problems": problems
        case "total": total
        case "totalText": totalText
        case "byStaff": byStaff
        case "byAction": byAction
        case "byReason": byReason
        case "hasReasons": !byReason.isEmpty
        case "staffChart": staffChart
        case "actionChart": actionChart
        case "reasonChart": reasonChart
        case "clockName": clockName
        case "chainNote": chainNote
        case "madeBy": madeBy
        case "queues": queues
        case "hasQueues": hasQueues
        case "isEmpty": isEmpty
        case "csvHref": csvHref
        case "backHref": backHref
        case "generatedAt": generatedAt
        default: nil
        }
    }
}
