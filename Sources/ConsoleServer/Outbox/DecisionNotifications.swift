import Foundation
import ModerationStore
import ModerationVocabulary

/// Who hears about a decision, and what they read.
enum DecisionNotifications {
    /// Whether Book Corners pushes the submitter about this decision itself: on a library's
    /// pending → approved, and on → rejected when a reason is given (backend-api.md). Judged on
    /// the transition the moderator asked for (the status they saw → the one they wanted), never
    /// on the item as re-read afterwards: after a lost answer the re-read shows our own change.
    static func bookCornersSendsItself(kind: ModerationAction.TargetKind, from seen: ItemStatus, to wanted: ItemStatus, reason: String) -> Bool {
        guard kind == .library else { return false }
        switch wanted {
        case .approved: return seen == .pending
        case .rejected: return !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        default: return false
        }
    }

    /// The message for an applied decision, or `nil` when nobody needs to hear of it.
    static func notification(for item: DecisionTarget, statusAfter: ItemStatus, reason: String) -> PushNotification? {
        let place = item.nameInCity
        switch (item.kind, statusAfter) {
        case (.library, .approved):
            return PushNotification(
                title: "Your library is live", body: "\(place) has been approved.", type: .libraryApproved,
                ids: ["library_id": item.libraryID])
        case (.library, .rejected):
            let why = reason.isEmpty ? "" : " Reason: \(reason)"
            return PushNotification(
                title: "Your library was not approved", body: "\(place) was not approved.\(why)", type: .libraryRejected,
                ids: ["library_id": item.libraryID])
        case (.photo, .approved):
            return PushNotification(
                title: "Your photo is live", body: "Your photo of \(place) is now the library's photo.", type: .photoApproved,
                ids: ["photo_id": item.itemID, "library_id": item.libraryID])
        case (.photo, .rejected):
            let why = reason.isEmpty ? "" : " Reason: \(reason)"
            return PushNotification(
                title: "Your photo was not used", body: "Your photo of \(place) was not approved.\(why)", type: .photoRejected,
                ids: ["photo_id": item.itemID, "library_id": item.libraryID])
        case (.report, .resolved):
            return PushNotification(
                title: "Thanks for your report", body: "Your report about \(place) has been resolved.", type: .reportResolved,
                ids: ["report_id": item.itemID, "library_id": item.libraryID])
        default:
            return nil
        }
    }
}
