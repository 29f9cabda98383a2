import Foundation
import ModerationStore
import Mustache

/// The audit log's summary over a range: decisions by kind, and how long each queue waited.
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
    let byOutcome: [CountRow]
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
    /// "Times in Rome time": which clock the report's times are on, for its title.
    let clockName: String
    /// The footer a printed copy carries: the audit chain's head and when it was last walked.
    let chainFooter: String

    init(
        layout: LayoutModel, range: String, problems: [String], summary: AuditSummary, csvHref: String, backHref: String, generatedAt: String,
        clockName: String, chain: AuditChainVerdict
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
        byOutcome = rows(summary.byOutcome)
        byReason = rows(summary.byReason)
        staffChart = SummaryChart(id: "summary-staff", title: "Decisions by staff member", rows: byStaff)
        actionChart = SummaryChart(id: "summary-kind", title: "Decisions by kind", rows: byAction)
        reasonChart = SummaryChart(id: "summary-reason", title: "Rejections by reason", rows: byReason)
        self.clockName = clockName
        chainFooter =
            switch chain {
            case .intact(let entries, let head):
                "Audit chain: \(CountText.of(entries, "entry", "entries")), head hash \(head), verified intact \(generatedAt)."
            case .broken(let entryID, let reason):
                "Audit chain: broken at entry \(entryID) (\(reason)), found when verified \(generatedAt)."
            }
        queues = summary.queues.map {
            QueueRow(queue: $0.queue, decisions: $0.decisions, median: DurationText.hours($0.medianSeconds), p90: DurationText.hours($0.p90Seconds))
        }
        hasQueues = !queues.isEmpty
        isEmpty = summary.total == 0
        self.csvHref = csvHref
        self.backHref = backHref
        self.generatedAt = generatedAt
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "range": range
        case "problems": problems
        case "total": total
        case "totalText": totalText
        case "byStaff": byStaff
        case "byAction": byAction
        case "byOutcome": byOutcome
        case "byReason": byReason
        case "hasReasons": !byReason.isEmpty
        case "staffChart": staffChart
        case "actionChart": actionChart
        case "reasonChart": reasonChart
        case "clockName": clockName
        case "chainFooter": chainFooter
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
