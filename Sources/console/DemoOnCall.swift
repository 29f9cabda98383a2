import Foundation
import ModerationStore

/// The demo's on-call set-up: the sandbox's staff accounts become staff the console knows, and,
/// unless a rotation exists already (the demo's data survives restarts), one-day shifts in
/// Rome handing off at 09:00, arranged so the account the demo prints is on call now.
enum DemoOnCall {
    static let timeZone = "Europe/Rome"
    static let handoff = LocalTime(hour: 9, minute: 0)

    /// Records `staff` in the console's store and sets up the demo rotation if there is none.
    static func prepare(store: ModerationStore, staff: [(id: Int, username: String)], onCallFirst username: String, now: Date) throws {
        let members = staff.map { StaffMember(id: $0.id, username: $0.username) }
        for member in members { try store.recordStaffMember(member, signedInAt: nil, now: now) }
        guard try store.rotation() == nil, let zone = TimeZone(identifier: timeZone) else { return }
        let ordered = members.filter { $0.username == username } + members.filter { $0.username != username }
        // The shift under way began today at 09:00 in Rome, or yesterday when it is earlier than that.
        let today = LocalDate(now, in: zone)
        let start = today.instant(at: handoff, in: zone) <= now ? today : today.adding(days: -1)
        let rotation = try Rotation(members: ordered, shiftDays: 1, handoff: handoff, timeZone: zone, startDate: start)
        let entry = AuditEntry(
            recordedAt: now, actorId: nil, actorUsername: "console demo", action: "rotation.update", targetKind: "oncall", targetId: "1",
            targetSlug: "", targetName: "demo rotation", statusBefore: "", statusAfter: ordered.map(\.username).joined(separator: ", "),
            reason: "", outcome: .succeeded, backendStatus: nil, requestId: "", clientAddress: "", userAgent: "console demo", itemCreatedAt: nil,
            actionId: nil)
        try store.saveRotation(rotation, audit: entry, now: now)
    }
}
