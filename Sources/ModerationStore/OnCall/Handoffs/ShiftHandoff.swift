import Foundation
import GRDB

/// A hand-off that happened: who handed over to whom and when (its identity: one per instant),
/// the digest built then, and whether the person taking over has dismissed it from their dashboard.
public struct ShiftHandoff: Sendable, Equatable, FetchableRecord {
    public static let databaseTableName = "shiftHandoff"

    /// Its row id: what its page's address and its push name.
    public let id: Int64
    /// When the outgoing person's turn began.
    public let startsAt: Date
    /// The hand-off itself.
    public let endsAt: Date
    public let outgoing: StaffMember
    public let incoming: StaffMember
    public var digest: HandoffDigest
    public let builtAt: Date
    public let dismissedAt: Date?
    public let dismissedBy: String?

    public init(
        id: Int64, startsAt: Date, endsAt: Date, outgoing: StaffMember, incoming: StaffMember, digest: HandoffDigest, builtAt: Date,
        dismissedAt: Date? = nil, dismissedBy: String? = nil
    ) {
        self.id = id
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.outgoing = outgoing
        self.incoming = incoming
        self.digest = digest
        self.builtAt = builtAt
        self.dismissedAt = dismissedAt
        self.dismissedBy = dismissedBy
    }

    public init(row: Row) throws {
        id = row["id"]
        startsAt = row["startsAt"]
        endsAt = row["endsAt"]
        outgoing = StaffMember(id: row["outgoingId"], username: row["outgoingUsername"])
        incoming = StaffMember(id: row["incomingId"], username: row["incomingUsername"])
        digest = try HandoffDigest.decode(row["digest"])
        builtAt = row["builtAt"]
        dismissedAt = row["dismissedAt"]
        dismissedBy = row["dismissedBy"]
    }

    /// A hand-off about to be stored: everything but the id the store gives it.
    public struct Planned: Sendable {
        public let startsAt: Date
        public let endsAt: Date
        public let outgoing: StaffMember
        public let incoming: StaffMember
        public var digest: HandoffDigest
        public let builtAt: Date

        public init(startsAt: Date, endsAt: Date, outgoing: StaffMember, incoming: StaffMember, digest: HandoffDigest, builtAt: Date) {
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.outgoing = outgoing
            self.incoming = incoming
            self.digest = digest
            self.builtAt = builtAt
        }

        func stored(id: Int64) -> ShiftHandoff {
            ShiftHandoff(id: id, startsAt: startsAt, endsAt: endsAt, outgoing: outgoing, incoming: incoming, digest: digest, builtAt: builtAt)
        }
    }

    public var state: State { dismissedAt == nil ? .shown : .dismissed }

    /// Where a hand-off stands on the incoming person's dashboard; the one list of its moves.
    public enum State: String, Sendable, CaseIterable {
        /// On the incoming person's dashboard.
        case shown
        /// Dismissed by them: only the On call page lists it.
        case dismissed

        public var allowedNext: Set<State> {
            switch self {
            case .shown: [.dismissed]
            case .dismissed: []
            }
        }
    }
}
