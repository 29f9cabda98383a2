import Foundation

extension AuditEntry {
    /// The actor of every observed entry.
    public static let outsideActor = "outside the console"
    /// What an observed entry's action starts with: `observed.library.approved`, `observed.photo.deleted`.
    public static let observedActionPrefix = "observed."
    /// The status after, and the last word of the action, of an item that disappeared.
    public static let deletedStatus = "deleted"

    /// Whether this entry records a change made outside the console.
    public var isObserved: Bool { outcome == .observed }

    /// When the change happened, for an observed entry.
    public var observedWindow: ObservedWindow? { isObserved ? ObservedWindow(detail: outcomeDetail) : nil }

    /// An entry for a change the mirror saw that no decision of the console explains.
    static func observed<Item: MirroredItem>(_ item: Item, before: String, after: String, window: ObservedWindow) -> AuditEntry {
        AuditEntry(
            recordedAt: window.to, actorId: nil, actorUsername: outsideActor,
            action: observedActionPrefix + Item.kind.rawValue + "." + after, targetKind: Item.kind.rawValue, targetId: String(item.id),
            targetSlug: item.auditSlug, targetName: item.auditName, statusBefore: before, statusAfter: after,
            reason: after == deletedStatus ? "" : item.shownRejectionReason, outcome: .observed, outcomeDetail: window.detail,
            backendStatus: nil, requestId: "", clientAddress: "", userAgent: "", itemCreatedAt: item.createdAt, actionId: nil)
    }
}
