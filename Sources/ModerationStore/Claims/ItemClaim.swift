import Foundation
import GRDB

/// A staff member's "I'm reviewing this" on one library, report or photo: it warns colleagues,
/// it never blocks them. At most one claim per item is active (the database enforces it).
public struct ItemClaim: Codable, FetchableRecord, MutablePersistableRecord, Sendable, Identifiable {
    public static let databaseTableName = "itemClaim"

    /// The item a claim is on: its kind and its key (a library's slug, a report's or photo's id).
    public struct Target: Hashable, Sendable {
        public let kind: ModerationAction.TargetKind
        public let key: String

        public init(kind: ModerationAction.TargetKind, key: String) {
            self.kind = kind
            self.key = key
        }
    }

    /// Where a claim is in its life, and the moves it may make: the one place that says which
    /// transitions exist. Every store method that ends a claim names the states it expects
    /// (`WHERE state IN (…)`) and checks the change count.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// Its holder is reviewing the item until `expiresAt`.
        case active
        /// Its holder let it go.
        case released
        /// Nobody ended it before `expiresAt`.
        case expired
        /// A decision on the item was recorded (by anyone).
        case decided
        /// Another staff member took it over (audited).
        case takenOver

        /// The states a claim in this state may move to.
        public var allowedNext: Set<State> {
            switch self {
            case .active: [.released, .expired, .decided, .takenOver]
            case .released, .expired, .decided, .takenOver: []
            }
        }

        /// Every state from which `target` may be reached.
        public static func sources(of target: State) -> [State] {
            allCases.filter { $0.allowedNext.contains(target) }
        }
    }

    public var id: Int64?
    public var targetKind: ModerationAction.TargetKind
    /// The slug of a library, the id of a report or photo.
    public var targetKey: String
    /// The staff member's backend user id.
    public var holderId: Int
    public var holderUsername: String
    public var state: State
    public var claimedAt: Date
    public var expiresAt: Date
    /// When it stopped being active; nil while active.
    public var endedAt: Date?
    /// Who ended it (the username of the holder, the decider or the taker); nil while active or when it expired.
    public var endedBy: String?

    public init(target: Target, holderId: Int, holderUsername: String, claimedAt: Date, duration: TimeInterval) {
        targetKind = target.kind
        targetKey = target.key
        self.holderId = holderId
        self.holderUsername = holderUsername
        state = .active
        self.claimedAt = claimedAt
        expiresAt = claimedAt.addingTimeInterval(duration)
    }

    public var target: Target { Target(kind: targetKind, key: targetKey) }

    /// Whole minutes left at `now`, rounded up: never 0 while the claim is live. Counted in
    /// whole seconds first: the database keeps times to the millisecond, rounded, so a claim
    /// just made can come back a fraction of a second longer, and must not read "16 min left".
    public func minutesLeft(at now: Date) -> Int {
        let seconds = max(0, Int(expiresAt.timeIntervalSince(now).rounded()))
        return max(1, (seconds + 59) / 60)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    public enum Columns {
        static let targetKind = Column(CodingKeys.targetKind)
        static let targetKey = Column(CodingKeys.targetKey)
        static let state = Column(CodingKeys.state)
        static let expiresAt = Column(CodingKeys.expiresAt)
    }
}
