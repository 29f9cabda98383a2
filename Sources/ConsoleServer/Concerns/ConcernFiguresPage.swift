import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// What each reason to look caught: waiting now, decided in the last 30 days, and how many of
/// those were rejected, so staff can tell a reason that finds problems from one that is noise;
/// and the form where staff tune the thresholds and the suspect words.
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
    /// What the settings form shows: the stored settings, or what was typed when it had a problem.
    private(set) var form: ConcernSettingsForm
    /// The settings the form was shown with (its `seen`): always the stored ones.
    let seen: String
    private(set) var problem = ""

    init(layout: LayoutModel, figures: [String: ConcernFigures], settings: ConcernSettings, firstRecorded: Date?, now: Date) {
        self.layout = layout
        seen = ConcernSettingsInput.seen(settings)
        form = ConcernSettingsForm(
            strongDuplicateMetres: String(settings.strongDuplicateMetres), duplicateMetres: String(settings.duplicateMetres),
            sameNameMetres: String(settings.sameNameMetres), burstSubmissions: String(settings.burstSubmissions),
            strongRejections: String(settings.strongRejections), suspectWords: settings.suspectWords.joined(separator: "\n"), seen: nil)
        rows = LibraryConcern.Kind.allCases.map { kind in
            let figure = figures[kind.rawValue] ?? ConcernFigures()
            let outcome =
                figure.decided == 0
                ? "none decided yet"
                : "\(figure.rejected) of \(figure.decided) rejected (\(Int((Double(figure.rejected) / Double(figure.decided) * 100).rounded())) %)"
            return Row(
                label: kind.label, rule: Self.rule(kind, settings), filterURL: SiteURL.libraries.path(query: [(name: "reason", value: kind.rawValue)]),
                waiting: figure.waiting, decided: figure.decided, rejected: figure.rejected, outcome: outcome)
        }
        let start = now.addingTimeInterval(-Double(Self.days) * 86_400)
        since =
            firstRecorded.map { $0 > start ? "Reasons have been recorded since \(TeamClock.stamp($0)), so the figures reach back only to then." : "" }
            ?? "No library with reasons to look has been decided yet: the figures start with the first one."
    }

    /// The rule behind a kind of reason, with its thresholds.
    static func rule(_ kind: LibraryConcern.Kind, _ settings: ConcernSettings) -> String {
        let metres = { (value: Int) in Distance.text(Double(value)) }
        return switch kind {
        case .duplicate:
            "Strong: another approved or waiting library within \(metres(settings.strongDuplicateMetres)). Worth a look: one within \(metres(settings.duplicateMetres)), or one of the same name within \(metres(settings.sameNameMetres))."
        case .newSubmitter: "Worth a look: the submitter's first submission."
        case .oftenRejected:
            "Strong: at least \(CountText.of(settings.strongRejections, "rejection", "rejections")) and at least half of the submitter's decided submissions. Worth a look: half or more, of two or more."
        case .burst: "Worth a look: more than \(settings.burstSubmissions) submissions by the same person within the hour around it."
        case .markup: "Strong: a link or markup in the name or description."
        case .contactDetails: "Worth a look: a phone number or e-mail address in the name or description."
        case .suspectWords:
            settings.suspectWords.isEmpty
                ? "Worth a look: a word from the suspect list in the name or description. The list is empty."
                : "Worth a look: a word from the suspect list in the name or description (\(CountText.of(settings.suspectWords.count, "word", "words")))."
        case .allCapitals: "Worth a look: a name written in capitals."
        case .nameIsAddress: "Worth a look: a name that is only the address."
        case .place:
            "Strong: coordinates 0, 0, or outside the country the library names. Worth a look: round coordinates (one decimal place), or a spot the submitter used before."
        case .noPhoto: "Worth a look: no photo."
        }
    }

    /// Shows `problem` above the form, which keeps what was typed.
    mutating func showsProblem(_ problem: String, typed: ConcernSettingsForm) {
        self.problem = problem
        form = typed
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "rows": rows
        case "days": Self.days
        case "since": since
        case "hasSince": !since.isEmpty
        case "librariesURL": SiteURL.libraries.path
        case "settingsURL": SiteURL.concernSettings.path
        case "seen": seen
        case "problem": problem
        case "hasProblem": !problem.isEmpty
        case "strongDuplicateMetres": form.strongDuplicateMetres ?? ""
        case "duplicateMetres": form.duplicateMetres ?? ""
        case "sameNameMetres": form.sameNameMetres ?? ""
        case "burstSubmissions": form.burstSubmissions ?? ""
        case "strongRejections": form.strongRejections ?? ""
        case "suspectWords": form.suspectWords ?? ""
        case "distanceMin": ConcernSettings.distanceRange.lowerBound
        case "distanceMax": ConcernSettings.distanceRange.upperBound
        case "countMin": ConcernSettings.countRange.lowerBound
        case "countMax": ConcernSettings.countRange.upperBound
        case "maxWords": ConcernSettings.maxWords
        default: nil
        }
    }
}
