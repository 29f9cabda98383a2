import Foundation
import GRDB

/// A push notification to deliver: stored with the decision that caused it, delivered later
/// by the dispatcher, never deleted by delivery.
public struct OutboxMessage: Codable, FetchableRecord, PersistableRecord, Sendable, Identifiable {
    public static let databaseTableName = "outboxMessage"

    /// A UUID, also the `apns-id`: every attempt, a retry after a crash included, carries it.
    public var id: String
    /// The decision that caused it; `nil` for messages of the console's own (alerts, hand-offs).
    public var actionId: Int64?
    public var recipientUserId: Int
    public var eventType: EventType
    /// The APNs JSON payload, at most 4096 bytes.
    public var payload: String
    /// The APNs request headers, as a JSON object.
    public var headers: String
    public var status: State
    /// Delivery attempts made (a claim counts once, whatever number of devices it reached).
    public var attempts: Int
    public var createdAt: Date
    /// When the dispatcher may next take it (pending), or took it last.
    public var nextAttemptAt: Date
    /// The last failure or refusal in words; empty while all went well.
    public var lastReason: String
    public var claimedBy: String?
    public var leaseExpiresAt: Date?
    /// When it reached a final state.
    public var finishedAt: Date?
    /// Book Corners pushes this event itself (a library approved from pending, or rejected with a reason).
    public var sentByBookCorners: Bool
    /// Past this, APNs would drop it anyway (`apns-expiration`): it fails instead of being sent.
    public var expiresAt: Date?
    /// Names a message no decision caused (`alert-7-notice-2`), so it is stored exactly once.
    public var dedupeKey: String?

    public init(
        id: String, actionId: Int64?, recipientUserId: Int, eventType: EventType, payload: String, headers: String, createdAt: Date,
        sentByBookCorners: Bool = false, expiresAt: Date? = nil, dedupeKey: String? = nil
    ) {
        self.id = id
        self.actionId = actionId
        self.recipientUserId = recipientUserId
        self.eventType = eventType
        self.payload = payload
        self.headers = headers
        self.status = .pending
        self.attempts = 0
        self.createdAt = createdAt
        self.nextAttemptAt = createdAt
        self.lastReason = ""
        self.sentByBookCorners = sentByBookCorners
        self.expiresAt = expiresAt
        self.dedupeKey = dedupeKey
    }

    /// Where a message is on its way to its recipient, and the moves it may make: the one
    /// place that says which transitions exist. Every store method that changes a message's
    /// state names the states it expects (`WHERE status IN (…)`) and checks the change count.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Waiting for the dispatcher, due at `nextAttemptAt`.
        case pending
        /// Claimed by one dispatcher, which holds a lease while it delivers. Found with an
        /// expired lease, its dispatcher died: another claims it again, with the same `apns-id`.
        case sending
        /// Every active device of the recipient (or the spool, or the webhook) took it.
        case delivered
        /// Given up (expired, refused, or too many attempts): the dead letter, `lastReason` says why.
        case failed
        /// Kept for the record only: the delivery policy says Book Corners sends this itself.
        case recordedOnly = "recorded-only"
        /// The recipient has no active device token: nothing to deliver to (not an error).
        case noDevice = "no-device"
        /// Kept, never delivered: a staff member discarded a failed message, or the decision
        /// that caused it was undone before it went out.
        case discarded
        /// Waiting (or being sent) when a backup was taken that has since been restored: it may
        /// have gone out after the backup, so it waits for a staff member to send or discard it.
        case held

        /// The dispatcher is done with it (a staff member may still retry a failed or no-device one).
        public var isFinal: Bool { self != .pending && self != .sending }

        /// The states a message in this state may move to.
        public var allowedNext: Set<State> {
            switch self {
            // A dispatcher claims it; or the decision that caused it is undone before it goes out;
            // or a restore brings it back from a backup, after which it may have gone out.
            case .pending: [.sending, .discarded, .held]
            // Its dispatcher renews or hands over the lease, gives it back (a retry later, or
            // a shutdown), or ends it. Once claimed it may be on its way: an undo no longer stops it.
            // A restore holds it too.
            case .sending: [.sending, .pending, .delivered, .failed, .recordedOnly, .noDevice, .held]
            // Send or Discard, by a staff member; or its decision is undone.
            case .held: [.pending, .discarded]
            // Retry now, or Discard, by a staff member; or its decision is undone.
            case .failed: [.pending, .discarded]
            // Retry now once the recipient has a device; or its decision is undone.
            case .noDevice: [.pending, .discarded]
            case .delivered, .recordedOnly, .discarded: []
            }
        }

        /// The states a staff member's Retry now or Send (to `pending`) or Discard (to `discarded`)
        /// starts from: a message the dispatcher is done with and did not deliver, or one a restore
        /// held. Discard takes only a failed or held one; the other ways into `discarded` are an
        /// undo's (`NotificationWithdrawal`).
        public static func staffSources(of target: State) -> [State] {
            switch target {
            case .pending: [.failed, .noDevice, .held]
            case .discarded: [.failed, .held]
            default: []
            }
        }

        /// The states a restore holds: those the dispatcher would still (re)send on its own.
        public static let heldByRestore: [State] = sources(of: .held)

        /// Gone, or going (or, held after a restore, perhaps gone), to the recipient: what an undo
        /// can no longer take back for sure.
        public var hasGoneOut: Bool { self == .sending || self == .delivered || self == .recordedOnly || self == .held }

        /// Every state from which `target` may be reached.
        public static func sources(of target: State) -> [State] {
            allCases.filter { $0.allowedNext.contains(target) }
        }

        /// How a staff member reads it.
        public var label: String {
            switch self {
            case .pending: "Pending"
            case .sending: "Sending"
            case .delivered: "Delivered"
            case .failed: "Failed"
            case .recordedOnly: "Sent by Book Corners"
            case .noDevice: "No device"
            case .discarded: "Discarded"
            case .held: "Held after a restore"
            }
        }
    }

    /// What happened that the recipient hears about; the raw value is the payload's `type`.
    public enum EventType: String, Codable, Sendable, CaseIterable {
        case libraryApproved = "library.approved"
        case libraryRejected = "library.rejected"
        case photoApproved = "photo.approved"
        case photoRejected = "photo.rejected"
        case reportResolved = "report.resolved"
        /// To the person on call: a queue's oldest item is past its target age.
        case queueOverdue = "queue.overdue"
        /// To the person whose shift begins: the digest of the shift that ended.
        case shiftHandoff = "shift.handoff"

        /// The type as people say it; the machine name stays in settings and exports.
        public var label: String {
            switch self {
            case .libraryApproved: "Library approved"
            case .libraryRejected: "Library rejected"
            case .photoApproved: "Photo approved"
            case .photoRejected: "Photo rejected"
            case .reportResolved: "Report resolved"
            case .queueOverdue: "Queue overdue"
            case .shiftHandoff: "Shift hand-off"
            }
        }
    }

    public enum Columns {
        static let status = Column(CodingKeys.status)
        static let eventType = Column(CodingKeys.eventType)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}
