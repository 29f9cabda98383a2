import Foundation
import GRDB

/// One overdue episode of a queue: from the watcher seeing its oldest item past target until
/// the queue is back under target. At most one episode per queue is not closed (a partial
/// unique index), so two console processes on one file never open two.
public struct QueueAlert: Codable, FetchableRecord, Sendable, Equatable, Identifiable {
    public static let databaseTableName = "queueAlert"

    public var id: Int64
    public var queue: ModerationQueue
    public var state: State
    public var openedAt: Date
    public var closedAt: Date?
    /// Waiting items past target, as last seen (a lower bound when the watcher read only the queue's ends).
    public var overdueCount: Int
    /// When the oldest waiting item was created, as last seen.
    public var oldestCreatedAt: Date
    /// The queue's target when the episode opened, in minutes.
    public var targetMinutes: Int
    public var acknowledgedById: Int?
    public var acknowledgedByUsername: String?
    public var acknowledgedAt: Date?
    /// 0 until the first escalation; each escalation adds one.
    public var escalationLevel: Int
    /// The last message of this episode (notice, repeat or escalation); `nil` while nobody could be told.
    public var lastNotifiedAt: Date?
    /// Who was told last: the holder, whom repeats go to and who is expected to acknowledge.
    public var notifiedStaffId: Int?
    /// When the holder was first told: the acknowledgement clock runs from here.
    public var heldSince: Date?
    /// The first person told: escalation stops before it would wrap back to them.
    public var firstNotifiedStaffId: Int?

    /// An episode as a page shows it (the store makes them; tests and snapshots build their own).
    public init(
        id: Int64, queue: ModerationQueue, state: State, openedAt: Date, closedAt: Date? = nil, overdueCount: Int, oldestCreatedAt: Date,
        targetMinutes: Int, acknowledgedById: Int? = nil, acknowledgedByUsername: String? = nil, acknowledgedAt: Date? = nil,
        escalationLevel: Int = 0, lastNotifiedAt: Date? = nil, notifiedStaffId: Int? = nil, heldSince: Date? = nil,
        firstNotifiedStaffId: Int? = nil
    ) {
        self.id = id
        self.queue = queue
        self.state = state
        self.openedAt = openedAt
        self.closedAt = closedAt
        self.overdueCount = overdueCount
        self.oldestCreatedAt = oldestCreatedAt
        self.targetMinutes = targetMinutes
        self.acknowledgedById = acknowledgedById
        self.acknowledgedByUsername = acknowledgedByUsername
        self.acknowledgedAt = acknowledgedAt
        self.escalationLevel = escalationLevel
        self.lastNotifiedAt = lastNotifiedAt
        self.notifiedStaffId = notifiedStaffId
        self.heldSince = heldSince
        self.firstNotifiedStaffId = firstNotifiedStaffId
    }

    /// Where an episode is, and the moves it may make: the one place that says which
    /// transitions exist. Every store method that changes an episode's state names the states
    /// it expects (`WHERE state IN (…)`) and checks the change count.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// The person on call was told (or nobody could be); waiting for an acknowledgement.
        case open
        /// Someone said they are on it: no more escalation.
        case acknowledged
        /// Not acknowledged in time: the next person in the rotation was told.
        case escalated
        /// The queue is back under target.
        case closed

        /// The states an episode in this state may move to.
        public var allowedNext: Set<State> {
            switch self {
            case .open: [.acknowledged, .escalated, .closed]
            case .escalated: [.acknowledged, .escalated, .closed]
            case .acknowledged: [.closed]
            case .closed: []
            }
        }

        /// Every state from which `target` may be reached.
        public static func sources(of target: State) -> [State] {
            allCases.filter { $0.allowedNext.contains(target) }
        }

        /// Still waiting for someone to say they are on it.
        public var awaitsAcknowledgement: Bool { self == .open || self == .escalated }

        public var label: String {
            switch self {
            case .open: "Open"
            case .acknowledged: "Acknowledged"
            case .escalated: "Escalated"
            case .closed: "Closed"
            }
        }
    }

    /// The states of an episode not yet closed.
    public static let activeStates: [State] = State.allCases.filter { $0 != .closed }
}
