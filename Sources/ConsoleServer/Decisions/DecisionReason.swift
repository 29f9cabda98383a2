import Foundation
import ModerationVocabulary

/// The reason sent with a decision: typed text wins over the chosen preset; required when
/// rejecting (the submitter reads it); at most what Book Corners accepts, line breaks as LF.
enum DecisionReason {
    static let maxLength = 2000
    /// The preset list's last choice, "my own reason, written below": a required choice that
    /// names no text of its own (the typed text is the reason).
    static let ownReason = "own"

    static func text(typed: String?, preset: String?, required: Bool) throws(FormError) -> String {
        let typed = TypedText.withLineFeeds(typed ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let chosen = preset == ownReason ? "" : (preset ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let reason = typed.isEmpty ? chosen : typed
        if required, reason.isEmpty { throw .reasonRequired }
        guard reason.count <= maxLength else { throw .reasonTooLong(characters: reason.count, limit: maxLength) }
        return reason
    }
}
