import Foundation
import GRDB
import ModerationVocabulary

/// A staff member's decision, recorded before anything is sent to the backend.
public struct ModerationAction: Codable, FetchableRecord, MutablePersistableRecord, Sendable, Identifiable {
    public static let databaseTableName = "action"

    /// Where a decision is on its way to the backend, and the moves it may make: the one
    /// place that says which transitions exist. Every store method that changes an
    /// action's state names the states it expects and refuses any move not listed here.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Recorded, not tried yet.
        case queued
        /// Claimed by one runner, which holds a lease on it while it checks and sends. Found
        /// with an expired lease, its runner died: another resumes it with a re-check.
        case sending
        /// Backend busy, down or limiting, or a local problem: tried again at `nextAttemptAt`.
        case waiting
        /// Cannot proceed until a person acts (the author signs in again): not retried on its own.
        case parked
        case applied, conflict, failed
        /// Its author took it back before it was sent (audited `decision.cancel`).
        case cancelled

        public var isFinal: Bool { self == .applied || self == .conflict || self == .failed || self == .cancelled }

        /// The states an action in this state may move to.
        public var allowedNext: Set<State> {
            switch self {
            // A runner claims it, or postpones it unclaimed (a rate-limit hold); its author cancels
            // it; it is held (parked) when Book Corners says its author is no longer staff.
            case .queued, .waiting: [.sending, .waiting, .parked, .cancelled]
            // Its runner renews or hands over the lease, gives it back to wait, parks or finishes it.
            // Once sending has started it can no longer be cancelled: the PATCH may be on its way.
            case .sending: [.sending, .waiting, .parked, .applied, .conflict, .failed]
            // Its author signed in again, or cancelled it.
            case .parked: [.queued, .cancelled]
            case .applied, .conflict, .failed, .cancelled: []
            }
        }

        /// Every state from which `target` may be reached.
        public static func sources(of target: State) -> [State] {
            allCases.filter { $0.allowedNext.contains(target) }
        }
    }

    /// The states a decision ends in, and what the audit log calls each.
    public enum Ending: Sendable {
        case applied, conflict, failed

        public var state: State {
            switch self {
            case .applied: .applied
            case .conflict: .conflict
            case .failed: .failed
            }
        }

        public var auditOutcome: AuditOutcome {
            switch self {
            case .applied: .applied
            case .conflict: .conflict
            case .failed: .failed
            }
        }
    }

    public enum TargetKind: String, Codable, Sendable, CaseIterable {
        case library, report, photo

        /// The statuses an item of this kind can have.
        public var statuses: [ItemStatus] {
            switch self {
            case .library, .photo: LibraryStatus.allCases.map(ItemStatus.init)
            case .report: ReportStatus.allCases.map(ItemStatus.init)
            }
        }
    }

    public var id: Int64?
    public var idempotencyKey: String
    public var actorId: Int
    public var actorUsername: String
    public var targetKind: TargetKind
    /// The slug of a library, the id of a report or photo.
    public var targetKey: String
    public var statusSeen: ItemStatus
    public var statusWanted: ItemStatus
    public var reason: String
    /// A report's reason as the moderator saw it (reasons never change), so the runner can
    /// find the report again with the narrowest filter; nil for libraries and photos.
    public var reportReason: ReportReason?
    public var requestId: String
    public var clientAddress: String
    public var userAgent: String
    public var state: State
    /// PATCHes tried so far.
    public var attempts: Int
    /// Of those, how many may have reached the backend (timeout, dropped answer, a 5xx
    /// other than a proxy's 502, or a crash mid-send): only then may a re-check that finds
    /// the wanted status count it as ours.
    public var unknownOutcomes: Int
    /// Local failures (our database, a stored token) in a row; parks the action past a limit.
    public var localFailures: Int
    /// The runner holding the claim while `sending`, and until when.
    public var claimedBy: String?
    public var leaseExpiresAt: Date?
    public var nextAttemptAt: Date
    public var outcomeMessage: String?
    public var backendStatus: Int?
    public var createdAt: Date
    public var updatedAt: Date
    /// When the check before sending first failed to find the item where the mirror put it;
    /// nil while it has been found (or not looked for). Bounds how long it waits to be found.
    public var notFoundSince: Date?
    /// When a restore from a backup brought this decision back unfinished: the console that
    /// ran before the restore may already have sent it.
    public var restoredAt: Date?
    /// Until when the last PATCH of this decision may still act at Book Corners, while its
    /// outcome is unknown (timed out, answer lost, process died): nil once an answer settled
    /// it. Neither this decision nor any other on its item is checked or sent before then.
    public var inFlightUntil: Date?

    public init(
        idempotencyKey: String, actorId: Int, actorUsername: String, targetKind: TargetKind, targetKey: String,
        statusSeen: ItemStatus, statusWanted: ItemStatus, reason: String, requestId: String, clientAddress: String,
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
        self.unknownOutcomes = 0
        self.localFailures = 0
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
        static let targetKind = Column(CodingKeys.targetKind)
    }
}

extension ModerationAction {
    /// The `backendStatus` of a decision held because Book Corners says its author is no longer
    /// staff (403, "Staff access required"): parked, and not shown as on its way.
    public static let heldStatus = 403

    /// Held because its author is no longer staff (`ModerationStore.parkDecisions`).
    public var isHeldForRemovedAuthor: Bool { state == .parked && backendStatus == Self.heldStatus }
}
