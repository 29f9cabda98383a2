import Foundation
import ModerationStore

extension ModerationStore {
    /// Puts the team on `zone`'s clock the way staff do: a rotation of every staff member the
    /// console knows, week-long shifts from today, recorded as `by` did it.
    @discardableResult
    func putTeam(on zone: String, by actor: String = "staff") async throws -> TimeZone {
        guard let timeZone = TimeZone(identifier: zone) else { throw RotationError.unknownTimeZone(zone) }
        let rotation = try Rotation(
            members: try await staffMembers(), shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0), timeZone: timeZone,
            startDate: LocalDate(Date(), in: timeZone))
        let entry = AuditEntry(
            recordedAt: Date(), actorId: nil, actorUsername: actor, action: "rotation.update", targetKind: "oncall", targetId: "1", targetSlug: "",
            targetName: "rotation", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil, requestId: "r",
            clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil)
        try await saveRotation(rotation, audit: entry, now: Date())
        return timeZone
    }
}
