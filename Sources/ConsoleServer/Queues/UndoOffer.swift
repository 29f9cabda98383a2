import Foundation
import ModerationStore
import ModerationVocabulary
import Mustache

/// The Undo button beside the message that follows a report's resolution or dismissal, or a
/// library's approval or rejection: it posts the way back (a reopen, a return to waiting)
/// through the same decision form and action queue as any decision (so it is checked, sent and
/// audited as `report.reopen` or `library.pending`), naming the status the decision left.
struct UndoOffer: MustacheParent, Sendable, Equatable {
    let url: String
    /// The status the undone decision set: what the way back expects to find.
    let seen: String
    /// The decision that undoes it: `reopen` for a report, `pending` for a library.
    let decision: String
    let key: String
    let reportReason: String
    /// Where the reopen returns: the page the message is shown on.
    let back: String
    /// "Undo: reopen the report".
    let label: String

    /// How long after a decision its message may still offer to undo it.
    static let window: TimeInterval = 10 * 60

    /// The undo for `action` when it is the viewer's applied resolution or dismissal of a report,
    /// or approval or rejection of a library, and `flash` is its own message; nil otherwise
    /// (another message, a photo, which Book Corners cannot take back, not applied).
    init?(for action: ModerationAction, flash: String, back: String, now: Date) {
        guard action.state == .applied, action.outcomeMessage == flash, now.timeIntervalSince(action.updatedAt) < Self.window else { return nil }
        switch action.targetKind {
        case .report:
            guard [.resolved, .dismissed].contains(action.statusWanted), let id = ItemReference.id(action.targetKey) else { return nil }
            url = SiteURL.reportDecide(id).path
            decision = Decision.reopen.rawValue
            label = "Undo: reopen the report"
        case .library:
            guard [.approved, .rejected].contains(action.statusWanted), ItemReference.isSlug(action.targetKey) else { return nil }
            url = SiteURL.libraryDecide(action.targetKey).path
            decision = Decision.pending.rawValue
            label = action.statusWanted == .approved ? "Undo: take it off the map" : "Undo: back to waiting"
        case .photo:
            return nil
        }
        seen = action.statusWanted.rawValue
        key = "undo-" + UUID().uuidString
        reportReason = action.reportReason?.rawValue ?? ""
        self.back = back
    }

    /// The undo a page's message offers: the newest of the viewer's recent decisions whose message it is.
    static func find(flash: String?, viewer: Int, back: String, store: ModerationStore, now: Date = Date()) async throws -> UndoOffer? {
        guard let flash else { return nil }
        for kind in [ModerationAction.TargetKind.report, .library] {
            let recent = try await store.recentDecisions(actorId: viewer, kind: kind, since: now.addingTimeInterval(-window))
            if let offer = recent.lazy.compactMap({ UndoOffer(for: $0, flash: flash, back: back, now: now) }).first { return offer }
        }
        return nil
    }

    func child(named key: String) -> Any? {
        switch key {
        case "url": url
        case "seen": seen
        case "decision": decision
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
    static let none = UndoOffer(url: "", seen: "", decision: "", key: "", reportReason: "", back: "", label: "")

    init(url: String, seen: String, decision: String, key: String, reportReason: String, back: String, label: String) {
        self.url = url
        self.seen = seen
        self.decision = decision
        self.key = key
        self.reportReason = reportReason
        self.back = back
        self.label = label
    }
}
