import Foundation
import ModerationStore

/// The list an item's page was opened from, as its decision form sent it back (`queue=…`):
/// a decision made on that page leads to the next item of that list.
enum ItemQueue {
    case libraries(LibraryQueueContext)
    case reports(ReportQueueContext)

    /// The list a form for an item of `kind` names; `nil` when it names none (a list's own
    /// rows and the photo queue return to the row instead).
    init?(kind: ModerationAction.TargetKind, formValue: String?) {
        switch kind {
        case .library: guard let queue = LibraryQueueContext(formValue: formValue) else { return nil }; self = .libraries(queue)
        case .report: guard let queue = ReportQueueContext(formValue: formValue) else { return nil }; self = .reports(queue)
        case .photo: return nil
        }
    }

    /// The page of the item after `key` in this list, or the list itself when none is left.
    func afterDecision(on key: String, store: ModerationStore, viewer: Int?, now: Date) async throws -> String {
        switch self {
        case .libraries(let queue):
            return try await LibraryQueueNavigator(store: store).afterDecision(on: key, in: queue, viewer: viewer, now: now)
        case .reports(let queue):
            guard let id = ItemReference.id(key) else { return queue.listPath }
            return try await ReportQueueNavigator(store: store).afterDecision(on: id, in: queue, viewer: viewer, now: now)
        }
    }
}
