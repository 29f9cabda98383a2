import Foundation
import Hummingbird
import ModerationStore

/// The audit page's filters, read from the URL: the same names the page's form, its
/// export links and its summary link use, so each keeps what the others show.
struct AuditQuery {
    let filter: AuditFilter
    let fromText: String?
    let toText: String?
    /// What the date fields held, to show back as typed when a date was ignored.
    let typedFrom: String
    let typedTo: String
    /// Why a date was ignored, in words for the page.
    let problems: [String]

    /// Days are the team's: "2026-11-27" runs from midnight to midnight on its clock (`zone`),
    /// as the times the page shows do.
    init(_ query: ListQuery, zone: TimeZone = TeamClock.current.zone) {
        var problems: [String] = []
        var typed: [String: String] = [:]
        func day(_ name: String, label: String) -> (String?, LocalDate?) {
            guard let text = query.text(name, maxLength: 20) else { return (nil, nil) }
            typed[name] = text
            guard let date = TeamTimeInput.date(text) else {
                problems.append("\(label) “\(text)” is not a date like 2026-11-01, so it was ignored.")
                return (nil, nil)
            }
            typed[name] = date.description
            return (date.description, date)
        }
        let midnight = LocalTime(hour: 0, minute: 0)
        let (fromText, fromDay) = day("from", label: "From")
        let (toText, toDay) = day("to", label: "To")
        let from = fromDay?.instant(at: midnight, in: zone)
        // The last day is included: up to the next day's midnight (23 or 25 hours on a day the clocks change).
        let to = toDay?.adding(days: 1).instant(at: midnight, in: zone)
        let outcomeText = query.text("outcome", maxLength: 30)
        let outcome = outcomeText.flatMap(AuditOutcome.init(rawValue:))
        if let outcomeText, outcome == nil { problems.append("“\(outcomeText)” is not an outcome, so it was ignored.") }
        var filter = AuditFilter(
            actorUsername: query.text("staff", maxLength: 150), action: query.text("action", maxLength: 60),
            outcome: outcome, targetText: query.text("q", maxLength: 200), from: from, to: to)
        filter.zone = zone
        if let fromDay, let toDay, toDay < fromDay {
            problems.append("From comes after To, so the dates were ignored.")
            filter.from = nil
            filter.to = nil
        }
        self.filter = filter
        self.fromText = filter.from == nil ? nil : fromText
        self.toText = filter.to == nil ? nil : toText
        self.problems = problems
        typedFrom = typed["from"] ?? ""
        typedTo = typed["to"] ?? ""
    }

    /// The filters as URL query items, for links that keep them.
    var items: [(String, String?)] {
        [
            ("staff", filter.actorUsername), ("action", filter.action), ("outcome", filter.outcome?.rawValue), ("q", filter.targetText),
            ("from", fromText), ("to", toText),
        ]
    }

    /// A download's file name that says what is in it: the period, then each filter, e.g.
    /// `book-corners-audit-2026-11-01-to-2026-11-24-staff-maria-outcome-refused.csv`. An
    /// open end is "start" or today's date. Only ASCII letters, digits, `.`, `_` and `-`
    /// survive (the name travels in a header), so `filter.description` stays the full account.
    func fileName(_ kind: String, fileExtension: String, variant: String? = nil, today: Date) -> String {
        var parts = [kind, fromText ?? "start", "to", toText ?? ISOTime.day(today)]
        if let staff = filter.actorUsername { parts += ["staff", staff] }
        if let action = filter.action { parts += ["action", action] }
        if let outcome = filter.outcome { parts += ["outcome", outcome.rawValue] }
        if let target = filter.targetText { parts += ["target", target] }
        if let variant { parts.append(variant) }
        var name = ""
        for scalar in parts.joined(separator: "-").unicodeScalars {
            let keep = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
            let next: Character = keep ? Character(scalar) : "-"
            if next == "-", name.last == "-" { continue }
            name.append(next)
        }
        let trimmed = String(name.prefix(150)).trimmingCharacters(in: CharacterSet(charactersIn: "-."))
        return "book-corners-\(trimmed).\(fileExtension)"
    }

    /// `url` with these filters and `extra` in its query.
    func href(_ url: SiteURL, adding extra: [(String, String?)] = []) -> String {
        url.path(query: (items + extra).map { (name: $0.0, value: $0.1) })
    }
}
