import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// The Undo button beside the message that follows a report's resolution or dismissal: it
/// posts a reopen through the same decision form and action queue as any decision (so it is
/// checked, sent and audited as `report.reopen`), naming the status the decision left.
struct UndoOffer: MustacheParent, Sendable, Equatable {
    let url: String
    /// The status the undone decision set: what the reopen expects to find.
    let seen: String
    let key: String
    let reportReason: String
    /// Where the reopen returns: the page the message is shown on.
    let back: String
    /// "Undo: reopen the report".
    let label: String

    /// How long after a decision its message may still offer to undo it.
    static let window: TimeInterval = 10 * 60

    /// The undo for `action` when it is the viewer's applied resolution or dismissal of a report
    /// and `flash` is its own message; nil otherwise (another message, another kind, not applied).
    init?(for action: ModerationAction, flash: String, back: String, now: Date) {
        guard action.targetKind == .report, action.state == .applied, action.outcomeMessage == flash,
            [.resolved, .dismissed].contains(action.statusWanted), now.timeIntervalSince(action.updatedAt) < Self.window,
            let id = ItemReference.id(action.targetKey)
        else { return nil }
        url = SiteURL.reportDecide(id).path
        seen = action.statusWanted.rawValue
        key = "undo-" + UUID().uuidString
        reportReason = action.reportReason?.rawValue ?? ""
        self.back = back
        label = "Undo: reopen the report"
    }

    /// The undo a page's message offers: the newest of the viewer's recent report decisions whose message it is.
    static func find(flash: String?, viewer: Int, back: String, store: ModerationStore, now: Date = Date()) async throws -> UndoOffer? {
        guard let flash else { return nil }
        let recent = try await store.recentDecisions(actorId: viewer, kind: .report, since: now.addingTimeInterval(-window))
        return recent.lazy.compactMap { UndoOffer(for: $0, flash: flash, back: back, now: now) }.first
    }

    func child(named key: String) -> Any? {
        switch key {
        case "url": url
        case "seen": seen
        case "key": self.key
        case "reportReason": reportReason
        case "back": back
        case "label": label
        default: nil
        }
    }
}

extension UndoOffer {
    /// What the layout answers when there is no undo: every field a value (see `LayoutModel`).
    static let none = UndoOffer(url: "", seen: "", key: "", reportReason: "", back: "", label: "")

    init(url: String, seen: String, key: String, reportReason: String, back: String, label: String) {
        self.url = url
        self.seen = seen
        self.key = key
        self.reportReason = reportReason
        self.back = back
        self.label = label
    }
}
