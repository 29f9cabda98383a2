import Foundation

/// An on-call rotation: members take turns of `shiftDays` days in order, handing off at a
/// wall-clock time in `timeZone` from `startDate` on. Shifts are computed, never stored: shift
/// `n` starts `n × shiftDays` calendar days after the start date at the hand-off time, so a
/// 09:00 hand-off stays 09:00 local when the clocks change (the shift is an hour shorter or longer).
public struct Rotation: Sendable, Equatable {
    public let members: [StaffMember]
    public let shiftDays: Int
    public let handoff: LocalTime
    public let timeZone: TimeZone
    public let startDate: LocalDate

    /// The longest shift a rotation may have.
    public static let maxShiftDays = 28

    /// Refuses rotations that cannot produce a schedule, saying why.
    public init(members: [StaffMember], shiftDays: Int, handoff: LocalTime, timeZone: TimeZone, startDate: LocalDate) throws(RotationError) {
        guard !members.isEmpty else { throw .noMembers }
        var seen = Set<Int>()
        for member in members where !seen.insert(member.id).inserted { throw .repeatedMember(member.username) }
        guard shiftDays >= 1 else { throw .shiftTooShort(shiftDays) }
        guard shiftDays <= Self.maxShiftDays else { throw .shiftTooLong(shiftDays) }
        guard startDate.isValid else { throw .badStartDate(startDate.description) }
        self.members = members
        self.shiftDays = shiftDays
        self.handoff = handoff
        self.timeZone = timeZone
        self.startDate = startDate
    }

    /// When rotation shift `index` begins (shift 0 begins on the start date).
    public func start(ofShift index: Int) -> Date {
        startDate.adding(days: index * shiftDays).instant(at: handoff, in: timeZone)
    }

    /// Who rotation shift `index` belongs to, before overrides.
    public func member(ofShift index: Int) -> StaffMember {
        members[((index % members.count) + members.count) % members.count]
    }

    /// The rotation shift under way at `instant`; `nil` before the rotation starts.
    public func shiftIndex(at instant: Date) -> Int? {
        guard instant >= start(ofShift: 0) else { return nil }
        let localDays = startDate.days(to: LocalDate(instant, in: timeZone))
        // The local date gives the shift or the one after it (before the day's hand-off).
        var index = max(0, localDays / shiftDays)
        while index > 0, start(ofShift: index) > instant { index -= 1 }
        while start(ofShift: index + 1) <= instant { index += 1 }
        return index
    }
}
