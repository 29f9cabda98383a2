import Foundation
import GRDB

/// The hand-off at the end of rotation shift `shiftIndex`: who handed over to whom, the digest
/// built then, and whether the person taking over has dismissed it from their dashboard.
public struct ShiftHandoff: Sendable, Equatable, FetchableRecord {
    public static let databaseTableName = "shiftHandoff"

    public let shiftIndex: Int
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
        shiftIndex: Int, startsAt: Date, endsAt: Date, outgoing: StaffMember, incoming: StaffMember, digest: HandoffDigest, builtAt: Date,
        dismissedAt: Date? = nil, dismissedBy: String? = nil
    ) {
        self.shiftIndex = shiftIndex
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
        shiftIndex = row["shiftIndex"]
        startsAt = row["startsAt"]
        endsAt = row["endsAt"]
        outgoing = StaffMember(id: row["outgoingId"], username: row["outgoingUsername"])
        incoming = StaffMember(id: row["incomingId"], username: row["incomingUsername"])
        digest = try HandoffDigest.decode(row["digest"])
        builtAt = row["builtAt"]
        dismissedAt = row["dismissedAt"]
        dismissedBy = row["dismissedBy"]
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
