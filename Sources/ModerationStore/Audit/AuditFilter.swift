import Foundation
import GRDB

/// Which audit entries a page, export or summary covers. Every field is optional; text is
/// matched as typed, never interpreted as SQL.
public struct AuditFilter: Sendable, Equatable {
    public var actorUsername: String?
    public var action: String?
    public var outcome: AuditOutcome?
    /// Matched against the target's name and slug (contains) and its id (equals).
    public var targetText: String?
    /// Inclusive.
    public var from: Date?
    /// Exclusive.
    public var to: Date?
    /// Whose days `description` names: the team's on the audit page, UTC on the command line.
    public var zone: TimeZone = .gmt

    public init(
        actorUsername: String? = nil, action: String? = nil, outcome: AuditOutcome? = nil, targetText: String? = nil, from: Date? = nil,
        to: Date? = nil
    ) {
        self.actorUsername = actorUsername
        self.action = action
        self.outcome = outcome
        self.targetText = targetText
        self.from = from
        self.to = to
    }

    /// `WHERE …` conditions joined with AND (or `1` when nothing is filtered), and their arguments.
    func sqlConditions() -> (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let actorUsername {
            conditions.append("actorUsername = ?")
            arguments += [actorUsername]
        }
        if let action {
            conditions.append("action = ?")
            arguments += [action]
        }
        if let outcome {
            let condition = outcome.sqlCondition()
            conditions.append(condition.sql)
            arguments += StatementArguments(condition.arguments)
        }
        if let targetText {
            let pattern = "%" + Self.escapeLike(targetText) + "%"
            conditions.append("(targetName LIKE ? ESCAPE '\\' OR targetSlug LIKE ? ESCAPE '\\' OR targetId = ?)")
            arguments += [pattern, pattern, targetText]
        }
        // Dates are stored as "yyyy-MM-dd HH:mm:ss.SSS" UTC text, so text order is time order.
        if let from {
            conditions.append("recordedAt >= ?")
            arguments += [from]
        }
        if let to {
            conditions.append("recordedAt < ?")
            arguments += [to]
        }
        return (conditions.isEmpty ? "1" : conditions.joined(separator: " AND "), arguments)
    }

    private static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// "2026-11-01 – 2026-11-22, staff alice": what an export covered, in words, for its
    /// own audit entry and the summary's heading.
    public var description: String {
        description(spanning: nil)
    }

    /// `description` for a report someone reads away from the console: an open end of the
    /// period is named by the day of the first or the latest of `entries` (the oldest and newest
    /// found in it), "2026-11-02 – 2026-11-29 (all dates: the first entry to the latest)",
    /// rather than "all dates", which says nothing on paper.
    public func description(spanning entries: ClosedRange<Date>?) -> String {
        let zone = zone
        func day(_ date: Date) -> String { LocalDate(date, in: zone).description }
        // `to` is exclusive; people name the last day they asked for.
        let lastDay = to.map { day($0.addingTimeInterval(-0.001)) }
        let firstEntry = entries.map { day($0.lowerBound) }
        let latestEntry = entries.map { day($0.upperBound) }
        var parts: [String] =
            switch (from.map(day), lastDay, firstEntry, latestEntry) {
            case (nil, nil, let first?, let latest?): ["\(first) – \(latest) (all dates: the first entry to the latest)"]
            case (nil, nil, _, _): ["all dates"]
            case (let start?, nil, _, let latest?): ["\(start) – \(latest) (to the latest entry)"]
            case (let start?, nil, _, nil): ["from \(start)"]
            case (nil, let end?, let first?, _): ["\(first) – \(end) (from the first entry)"]
            case (nil, let end?, nil, _): ["up to \(end)"]
            case (let start?, let end?, _, _): ["\(start) – \(end)"]
            }
        if let actorUsername { parts.append("staff \(actorUsername)") }
        if let action { parts.append("action “\(AuditActionName.of(action))”") }
        if let outcome { parts.append("outcome \(outcome.rawValue)") }
        if let targetText { parts.append("target \"\(targetText)\"") }
        return parts.joined(separator: ", ")
    }
}
