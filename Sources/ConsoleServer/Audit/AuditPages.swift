import Foundation
import ModerationStore
import Mustache

/// One audit entry as a table row.
struct AuditRow: MustacheParent {
    let id: Int64
    let href: String
    let actor: String
    let action: String
    let targetKind: String
    let target: String
    let statusChange: String
    let reason: String
    let hasReason: Bool
    let outcome: String
    /// `applied`, `conflict`, … as a CSS-safe word for the status badge.
    let outcomeClass: String
    let recordedAt: String
    let recordedUTC: String
    /// "2026-11-24 21:30 CET": on the team's clock, with its zone, for a log people print.
    let recordedLocal: String
    let age: String
    let hash: String
    let shortHash: String

    /// `city` is given when the target's name repeats in the list: it tells them apart.
    init(_ entry: AuditEntry, now: Date, clock: OnCallTimeText = OnCallTimeText(zone: .gmt), city: String? = nil) {
        id = entry.id ?? 0
        href = SiteURL.auditEntry(id).path
        actor = entry.actorUsername.isEmpty ? "—" : entry.actorUsername
        action = entry.action
        targetKind = entry.targetKind
        let name = entry.targetName.isEmpty ? entry.targetSlug : entry.targetName
        let plain = name.isEmpty ? (entry.targetId.isEmpty ? "" : "#\(entry.targetId)") : name
        target = city.map { "\(plain) (\($0))" } ?? plain
        statusChange = entry.statusBefore.isEmpty && entry.statusAfter.isEmpty ? "" : "\(entry.statusBefore) → \(entry.statusAfter)"
        reason = entry.reason
        hasReason = !entry.reason.isEmpty
        // The window of a change made outside the console is on the entry's own page.
        outcome = entry.isObserved ? AuditEntry.outsideActor : entry.outcomeText
        outcomeClass = entry.outcome.rawValue
        recordedAt = TimeText.iso(entry.recordedAt)
        recordedUTC = TimeText.utc(entry.recordedAt)
        recordedLocal = clock.stamp(entry.recordedAt)
        age = TimeText.age(of: entry.recordedAt, now: now)
        hash = entry.hash
        shortHash = String(entry.hash.prefix(12))
    }

    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "href": href
        case "actor": actor
        case "action": action
        case "targetKind": targetKind
        case "target": target
        case "statusChange": statusChange
        case "reason": reason
        case "hasReason": hasReason
        case "outcome": outcome
        case "outcomeClass": outcomeClass
        case "recordedAt": recordedAt
        case "recordedUTC": recordedUTC
        case "recordedLocal": recordedLocal
        case "age": age
        case "hash": hash
        case "shortHash": shortHash
        default: nil
        }
    }
}

/// What the Verify button found, in words a staff member can act on: what "intact" means,
/// and the head hash to keep somewhere else (a rewritten log could verify again, but its
/// head would no longer match a copy kept outside it).
struct AuditVerdictText: MustacheParent {
    let intact: Bool
    let message: String
    let explanation: String
    /// The newest entry's hash; empty when the chain is broken.
    let headHash: String
    let hasHeadHash: Bool

    init(_ verdict: AuditChainVerdict) {
        switch verdict {
        case .intact(let entries, let head):
            intact = true
            message = "All \(CountText.of(entries, "entry", "entries")) are as they were recorded."
            explanation =
                "Every entry still matches its own hash and the hash of the entry before it: none has been changed, removed or put in another order since it was written."
            headHash = head
        case .broken(let id, let reason):
            intact = false
            message = "Entry \(id) is not as it was recorded: \(reason)."
            explanation =
                "The entries before it check out; from entry \(id) on, the log cannot be trusted. Tell the console's maintainers, and keep this page and an export as evidence."
            headHash = ""
        }
        hasHeadHash = !headHash.isEmpty
    }

    func child(named key: String) -> Any? {
        switch key {
        case "intact": intact
        case "message": message
        case "explanation": explanation
        case "headHash": headHash
        case "hasHeadHash": hasHeadHash
        default: nil
        }
    }
}

/// One labelled field of the entry page.
struct AuditField: MustacheParent {
    let label: String
    let value: String
    let isCode: Bool

    static func fields(of entry: AuditEntry) -> [AuditField] {
        func text(_ label: String, _ value: String, code: Bool = false) -> AuditField {
            AuditField(label: label, value: value.isEmpty ? "—" : value, isCode: code && !value.isEmpty)
        }
        return [
            text("Recorded", "\(ISOTime.string(entry.recordedAt)) (\(TimeText.utc(entry.recordedAt)))"),
            // A failed or refused sign-in records whatever login was typed: not necessarily anyone on the staff.
            text(
                entry.action == AuditEntry.signInAction && entry.outcome != .succeeded ? "Login typed" : "Staff member",
                entry.actorUsername + (entry.actorId.map { " (user #\($0))" } ?? "")),
            text("Action", entry.action, code: true),
            text(
                "Target",
                [entry.targetKind, entry.targetId.isEmpty ? "" : "#\(entry.targetId)", entry.targetName]
                    .filter { !$0.isEmpty }.joined(separator: " ")),
            text("Slug", entry.targetSlug, code: true),
            text("Status before", entry.statusBefore),
            text("Status after", entry.statusAfter),
            text("Reason", entry.reason),
            text("Outcome", entry.outcomeText),
            text("Backend answer", entry.backendStatus.map { "HTTP \($0)" } ?? ""),
            text("Submitted", entry.itemCreatedAt.map { "\(ISOTime.string($0)) (\(TimeText.utc($0)))" } ?? ""),
            text("Request id", entry.requestId, code: true),
            text("Client address", entry.clientAddress),
            text("Browser", entry.userAgent),
            text("Action record", entry.actionId.map { "#\($0)" } ?? ""),
            text("Previous hash", entry.previousHash, code: true),
            text("Hash", entry.hash, code: true),
        ]
    }

    func child(named key: String) -> Any? {
        switch key {
        case "label": label
        case "value": value
        case "isCode": isCode
        default: nil
        }
    }
}

struct AuditListPage: MustacheParent {
    let layout: LayoutModel
    let staffOptions: [FilterOption]
    let actionOptions: [FilterOption]
    let outcomeOptions: [FilterOption]
    let q: String
    let from: String
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

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "staffOptions": staffOptions
        case "actionOptions": actionOptions
        case "outcomeOptions": outcomeOptions
        case "q": q
        case "from": from
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

struct AuditEntryPage: MustacheParent {
    /// Where the entry's item lives in the console, and how the link says it.
    struct ItemLink: Sendable, Equatable, MustacheParent {
        let href: String
        let label: String

        func child(named key: String) -> Any? {
            switch key {
            case "href": href
            case "label": label
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let row: AuditRow
    let fields: [AuditField]
    // Never nil: a missing name would be looked up further up the context stack.
    let hasItem: Bool
    let itemHref: String
    let itemLabel: String
    let older: AuditRow?
    let newer: AuditRow?
    /// `nil`: the entry is keyed and this console runs without the audit key, so it cannot tell.
    let hashMatches: Bool?
    let chainsToOlder: Bool
    let listURL = SiteURL.audit.path

    init(
        layout: LayoutModel, row: AuditRow, fields: [AuditField], item: ItemLink?, older: AuditRow?, newer: AuditRow?, hashMatches: Bool?,
        chainsToOlder: Bool
    ) {
        self.layout = layout
        self.row = row
        self.fields = fields
        hasItem = item != nil
        itemHref = item?.href ?? ""
        itemLabel = item?.label ?? ""
        self.older = older
        self.newer = newer
        self.hashMatches = hashMatches
        self.chainsToOlder = chainsToOlder
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "row": row
        case "fields": fields
        case "hasItem": hasItem
        case "itemHref": itemHref
        case "itemLabel": itemLabel
        case "older": older
        case "newer": newer
        case "hashMatches": hashMatches == true
        case "hashBroken": hashMatches == false
        case "hashUnchecked": hashMatches == nil
        case "chainsToOlder": chainsToOlder
        case "listURL": listURL
        default: nil
        }
    }
}

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
    let queues: [QueueRow]
    let hasQueues: Bool
    let isEmpty: Bool
    let csvHref: String
    let backHref: String
    let generatedAt: String

    init(layout: LayoutModel, range: String, problems: [String], summary: AuditSummary, csvHref: String, backHref: String, generatedAt: String) {
        self.layout = layout
        self.range = range
        self.problems = problems
        total = summary.total
        totalText = CountText.of(summary.total, "decision", "decisions")
        func rows(_ counts: [AuditSummary.Count]) -> [CountRow] {
            counts.map {
                CountRow(key: $0.key, decisions: $0.decisions, share: "\(Int((Double($0.decisions) * 100 / Double(max(summary.total, 1))).rounded())) %")
            }
        }
        byStaff = rows(summary.byStaff)
        byAction = rows(summary.byAction)
        byOutcome = rows(summary.byOutcome)
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

/// Waiting times in words: "45 min", "6.5 h", "3.2 d".
enum DurationText {
    static func hours(_ seconds: Double) -> String {
        switch seconds {
        case ..<3_600: "\(Int((seconds / 60).rounded())) min"
        case ..<(86_400 * 2): String(format: "%.1f h", seconds / 3_600)
        default: String(format: "%.1f d", seconds / 86_400)
        }
    }
}
