import Foundation
import GRDB

/// "bob covers alice from … to …": for its span, `staff` is on call whatever the rotation says.
/// Where overrides overlap, the one added last wins.
public struct RotationOverride: Sendable, Equatable, Identifiable, FetchableRecord {
    public let id: Int64
    public let staff: StaffMember
    public let startsAt: Date
    public let endsAt: Date
    public let note: String
    public let createdBy: String
    public let createdAt: Date

    public init(id: Int64, staff: StaffMember, startsAt: Date, endsAt: Date, note: String, createdBy: String, createdAt: Date) {
        self.id = id
        self.staff = staff
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.note = note
        self.createdBy = createdBy
        self.createdAt = createdAt
    }

    /// Read from `rotationOverride` joined with `staffMember` (see `ModerationStore.overrides`).
    public init(row: Row) throws {
        id = row["id"]
        staff = StaffMember(id: row["staffId"], username: row["username"])
        startsAt = row["startsAt"]
        endsAt = row["endsAt"]
        note = row["note"]
        createdBy = row["createdBy"]
        createdAt = row["createdAt"]
    }

    public func covers(_ instant: Date) -> Bool { startsAt <= instant && instant < endsAt }
}
