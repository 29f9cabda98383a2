import Foundation
import GRDB

/// One change to how an item stands, as the change record keeps it: which item, and what
/// moved (the item itself is read afresh, so a page shows what holds now, not what the row said).
public struct LiveChange: Sendable, Equatable, FetchableRecord, Decodable {
    public static let databaseTableName = "liveChange"

    /// What moved.
    public enum Cause: String, Codable, Sendable {
        /// A new item waiting, first seen by the mirror.
        case submitted
        /// Its status (or its existence) at Book Corners, as the mirror or a decision's outcome wrote it.
        case status
        /// A decision on it was recorded, or moved on its way.
        case decision
        /// A claim on it began or ended.
        case claim
    }

    /// Increasing: what a reconnecting page gives as `Last-Event-ID`.
    public let id: Int64
    public let recordedAt: Date
    public let targetKind: ModerationAction.TargetKind
    public let targetKey: String
    public let cause: Cause

    public var target: ItemClaim.Target { ItemClaim.Target(kind: targetKind, key: targetKey) }
}
