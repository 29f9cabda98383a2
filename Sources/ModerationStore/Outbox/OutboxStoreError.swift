import Foundation
import GRDB

/// Why a move of an outbox message was refused.
public enum OutboxStoreError: Error, Equatable, Sendable {
    /// The dispatcher no longer holds the message (its lease ran out and another took it).
    case lostClaim(messageID: String)
    /// The message is not in a state the move starts from (already retried, discarded, delivered).
    case notMovable(messageID: String, from: OutboxMessage.State?)
}
