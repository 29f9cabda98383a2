import Foundation
import GRDB
import ModerationVocabulary

/// What undoing a decision does to the pushes it caused, done in the transaction that records
/// the undo's outcome (`ModerationStore.finish(…, withdrawing:)`): those not gone out are
/// discarded, and the undo's message says whether the recipient was already told.
public struct NotificationWithdrawal: Sendable {
    /// The item whose latest applied decision is undone, and the status that decision set.
    public var targetKind: ModerationAction.TargetKind
    public var targetKey: String
    public var undoneStatus: ItemStatus
    /// The kind of message the undone decision sent.
    public var eventType: OutboxMessage.EventType
    /// Each discarded message's `lastReason`.
    public var reason: String
    /// Added to the undo's outcome when a message had gone out: "alice was already told it was resolved."
    public var alreadyToldNote: String
    /// Added when every message was stopped before it went out.
    public var withdrawnNote: String
    /// The audit entry of each discarded message (`outbox.discard`); target and statuses are filled per message.
    public var audit: AuditEntry

    public init(
        targetKind: ModerationAction.TargetKind, targetKey: String, undoneStatus: ItemStatus, eventType: OutboxMessage.EventType, reason: String,
        alreadyToldNote: String, withdrawnNote: String, audit: AuditEntry
    ) {
        self.targetKind = targetKind
        self.targetKey = targetKey
        self.undoneStatus = undoneStatus
        self.eventType = eventType
        self.reason = reason
        self.alreadyToldNote = alreadyToldNote
        self.withdrawnNote = withdrawnNote
        self.audit = audit
    }
}
