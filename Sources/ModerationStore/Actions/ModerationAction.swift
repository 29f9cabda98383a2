import Foundation
import GRDB

/// A staff member's decision, recorded before anything is sent to the backend.
public struct ModerationAction: Codable, FetchableRecord, MutablePersistableRecord, Sendable, Identifiable {
    public static let databaseTableName = "action"

    /// Where a decision is on its way to the backend.
    public enum State: String, Codable, Sendable {
        /// Recorded, not tried yet.
        case queued
        /// A PATCH may be on its way: after a crash, re-check before sending again.
        case sending
        /// Backend busy, down or limiting: tried again at `nextAttemptAt`.
        case waiting
        /// The actor's session is gone: waits until they sign in again.
        case parked
        case applied, conflict, failed

        public var isFinal: Bool { self == .applied || self == .conflict || self == .failed }
    }

    public enum TargetKind: String, Codable, Sendable {
        case library, report, photo
    }

    public var id: Int64?
    public var idempotencyKey: String
    public var actorId: Int
    public var actorUsername: String
    public var targetKind: TargetKind
    /// The slug of a library, the id of a report or photo.
    public var targetKey: String
    public var statusSeen: String
    public var statusWanted: String
    public var reason: String
    public var requestId: String
    public var clientAddress: String
    public var userAgent: String
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date
    public var outcomeMessage: String?
    public var backendStatus: Int?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        idempotencyKey: String, actorId: Int, actorUsername: String, targetKind: TargetKind, targetKey: String,
        statusSeen: String, statusWanted: String, reason: String, requestId: String, clientAddress: String,
        userAgent: String, now: Date
    ) {
        self.idempotencyKey = idempotencyKey
        self.actorId = actorId
        self.actorUsername = actorUsername
        self.targetKind = targetKind
        self.targetKey = targetKey
        self.statusSeen = statusSeen
        self.statusWanted = statusWanted
        self.reason = reason
        self.requestId = requestId
        self.clientAddress = clientAddress
        self.userAgent = userAgent
        self.state = .queued
        self.attempts = 0
        self.nextAttemptAt = now
        self.createdAt = now
        self.updatedAt = now
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    public enum Columns {
        static let idempotencyKey = Column(CodingKeys.idempotencyKey)
        static let actorId = Column(CodingKeys.actorId)
        static let state = Column(CodingKeys.state)
        static let nextAttemptAt = Column(CodingKeys.nextAttemptAt)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}
