import Foundation
import ModerationStore
import Mustache

/// What each reason to look caught: waiting now, decided in the last 30 days, and how many of
/// those were rejected, so staff can tell a reason that finds problems from one that is noise.
struct ConcernFiguresPage: MustacheParent {
    /// One kind of reason.
    struct Row: MustacheParent {
        let label: String
        /// When it applies and how strong it is, in words.
        let rule: String
        let filterURL: String
        let waiting: Int
        let decided: Int
        let rejected: Int
        /// "9 of 12 rejected (75 %)", or "none decided yet".
        let outcome: String

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "rule": rule
            case "filterURL": filterURL
            case "waiting": waiting
            case "decided": decided
            case "rejected": rejected
            case "outcome": outcome
            default: nil
            }
        }
    }

    static let days = 30

    let layout: LayoutModel
    let rows: [Row]
    /// Says from when the figures reach back, when that is within the 30 days.
    let since: String

    init(layout: LayoutModel, figures: [String: ConcernFigures], firstRecorded: Date?, now: Date) {
        self.layout = layout
        rows = LibraryConcern.Kind.allCases.map { kind in
            let figure = figures[kind.rawValue] ?? ConcernFigures()
            let outcome =
                figure.decided == 0
                ? "none decided yet"
                : "\(figure.rejected) of \(figure.decided) rejected (\(Int((Double(figure.rejected) / Double(figure.decided) * 100).rounded())) %)"
            return Row(
                label: kind.label, rule: Self.rule(kind), filterURL: SiteURL.libraries.path(query: [(name: "reason", value: kind.rawValue)]),
                waiting: figure.waiting, decided: figure.decided, rejected: figure.rejected, outcome: outcome)
        }
        let start = now.addingTimeInterval(-Double(Self.days) * 86_400)
        since =
            firstRecorded.map { $0 > start ? "Reasons have been recorded since \(TimeText.utc($0)), so the figures reach back only to then." : "" }
            ?? "No library has been decided since reasons were first recorded: the figures start with the next decision."
    }

    /// The rule behind a kind of reason, with its thresholds.
    static func rule(_ kind: LibraryConcern.Kind) -> String {
        let metres = { Distance.text($0) }
        return switch kind {
        case .duplicate:
            "Strong: another approved or waiting library within \(metres(LibraryConcerns.strongDuplicateMetres)). Worth a look: one within \(metres(LibraryConcerns.duplicateMetres)), or one of the same name within \(metres(LibraryEvidence.neighbourhoodMetres))."
        case .newSubmitter: "Worth a look: the submitter's first submission."
        case .oftenRejected: "Strong: at least three of the submitter's decided submissions rejected, and at least half. Worth a look: half or more of two."
        case .burst: "Worth a look: more than \(LibraryConcerns.burstSubmissions) other submissions by the same person within the hour around it."
        case .markup: "Strong: a link or markup in the name or description."
        case .contactDetails: "Worth a look: a phone number or e-mail address in the name or description."
        case .allCapitals: "Worth a look: a name written in capitals."
        case .nameIsAddress: "Worth a look: a name that is only the address."
        case .place: "Strong: coordinates 0, 0. Worth a look: round coordinates (one decimal place), or a spot the submitter used before."
        case .noPhoto: "Worth a look: no photo."
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "rows": rows
        case "days": Self.days
        case "since": since
        case "hasSince": !since.isEmpty
        case "librariesURL": SiteURL.libraries.path
        default: nil
        }
    }
}
