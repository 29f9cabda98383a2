import ModerationStore
import ModerationVocabulary

/// What an applied decision's message says happened, naming what was decided: a report or a
/// photo is not its library ("Dismissed: Community Bookcase in Stockholm" read as if the
/// library had been dismissed).
enum DecisionOutcomeText {
    /// "Approved: Corner Books in Florence", "Report on Community Bookcase (Stockholm) dismissed",
    /// "Photo of Corner Books (Florence) rejected"; without the final full stop.
    static func applied(_ status: ItemStatus, kind: ModerationAction.TargetKind, name: String, city: String) -> String {
        let library = LibraryText.displayName(name) + (city.isEmpty ? "" : " (\(city))")
        switch kind {
        case .library: return "\(status.pastTense): \(LibraryText.nameInCity(name, city: city))"
        case .report: return "Report on \(library) \(status.pastTense.lowercased())"
        case .photo: return "Photo of \(library) \(status == .approved ? "approved: it is the library's photo now" : status.pastTense.lowercased())"
        }
    }
}
