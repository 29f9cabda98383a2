import Foundation
import ModerationStore
import Mustache

/// The Pending actions panel's one line: how many decisions go now, those waiting for Book
/// Corners' limits grouped by the minute they send ("13 waiting: 10 at 21:35, 3 at 21:40", each
/// time on the team's clock), how many wait for their author, and what
/// was not applied. One part per fact, so a time can be a `<time>` element.
struct PendingSummary: MustacheParent {
    /// One fact of the line.
    struct Part: MustacheParent {
        /// " · " before every part but the first.
        let separator: String
        let text: String
        let isWaiting: Bool
        let count: Int
        let groups: [Group]

        func child(named key: String) -> Any? {
            switch key {
            case "separator": separator
            case "text": text
            case "isWaiting": isWaiting
            case "count": count
            case "groups": groups
            default: nil
            }
        }
    }

    /// Decisions that send in one minute.
    struct Group: MustacheParent {
        /// ", " before every group but the first.
        let separator: String
        let count: Int
        let timeISO: String
        /// "21:35 UTC" today, with the date otherwise: what shows without script.
        let timeText: String

        func child(named key: String) -> Any? {
            switch key {
            case "separator": separator
            case "count": count
            case "timeISO": timeISO
            case "timeText": timeText
            default: nil
            }
        }
    }

    let parts: [Part]
    let hasProblems: Bool

    init(_ actions: [ModerationAction], now: Date) {
        let onTheirWay = actions.filter { !$0.state.isFinal }
        // Queued ones past this window's sends wait too (their time is the expected one, see `SendSchedule`).
        let later = onTheirWay.filter { ($0.state == .waiting || $0.state == .queued) && $0.nextAttemptAt > now }
        let held = onTheirWay.filter { $0.state == .parked }.count
        let sendingNow = onTheirWay.count - later.count - held
        let problems = actions.filter { $0.state == .failed || $0.state == .conflict }.count
        let cancelled = actions.filter { $0.state == .cancelled }.count
        // To the minute, as each row's "sends at" says it.
        let minutes = Dictionary(grouping: later) { ($0.nextAttemptAt.timeIntervalSince1970 / 60).rounded(.down) }.sorted { $0.key < $1.key }
        let groups = minutes.enumerated().map { index, entry in
            let minute = Date(timeIntervalSince1970: entry.key * 60)
            return Group(
                separator: index == 0 ? "" : ", ", count: entry.value.count, timeISO: TimeText.iso(minute),
                timeText: TeamClock.shortStamp(minute, now: now))
        }
        var facts: [(text: String, groups: [Group]?)] = []
        if sendingNow > 0 { facts.append(("\(sendingNow) \(sendingNow == 1 ? "decision" : "decisions") on the way to Book Corners", nil)) }
        if !later.isEmpty { facts.append(("\(later.count) waiting: ", groups)) }
        if held > 0 { facts.append(("\(held) held until \(held == 1 ? "its author signs" : "their authors sign") in again", nil)) }
        if problems > 0 { facts.append(("\(problems) not applied in the last 15 minutes", nil)) }
        // Listed in the panel too: a line that said nothing about them would read as empty.
        if cancelled > 0 { facts.append(("\(cancelled) cancelled in the last 15 minutes", nil)) }
        parts = facts.enumerated().map { index, fact in
            Part(
                separator: index == 0 ? "" : " · ", text: fact.text, isWaiting: fact.groups != nil, count: fact.groups?.count ?? 0,
                groups: fact.groups ?? [])
        }
        hasProblems = problems > 0
    }

    /// The line as words, times as they show without script.
    var text: String {
        parts.map { part in
            part.separator + part.text + part.groups.map { "\($0.separator)\($0.count) at \($0.timeText)" }.joined()
        }.joined()
    }

    func child(named key: String) -> Any? {
        switch key {
        case "parts": parts
        case "hasProblems": hasProblems
        default: nil
        }
    }
}
