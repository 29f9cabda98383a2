import Foundation

/// The reason sent with a decision: typed text wins over the chosen preset; required when
/// rejecting (the submitter reads it); at most what Book Corners accepts.
enum DecisionReason {
    static let maxLength = 2000

    static func text(typed: String?, preset: String?, required: Bool) throws(FormError) -> String {
        let typed = (typed ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let reason = typed.isEmpty ? (preset ?? "").trimmingCharacters(in: .whitespacesAndNewlines) : typed
        if required, reason.isEmpty { throw .reasonRequired }
        guard reason.count <= maxLength else { throw .reasonTooLong(characters: reason.count, limit: maxLength) }
        return reason
    }
}
