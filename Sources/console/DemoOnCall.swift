import Foundation
import ModerationStore

/// The demo's on-call set-up: the sandbox's staff accounts become staff the console knows, and,
/// unless a rotation exists already (the demo's data survives restarts), one-day shifts in
/// Rome handing off at 09:00, arranged so the account the demo prints is on call now, since the
/// last hand-off.
enum DemoOnCall {
    static let timeZone = "Europe/Rome"
    static let handoff = LocalTime(hour: 9, minute: 0)

    /// Records `staff` in the console's store and sets up the demo rotation if there is none.
    static func prepare(store: ModerationStore, staff: [(id: Int, username: String)], onCallFirst username: String, now: Date) async throws {
        let members = staff.map { StaffMember(id: $0.id, username: $0.username) }
        for member in members { try await store.recordStaffMember(member, signedInAt: nil, now: now) }
        guard try await store.rotation() == nil, let zone = TimeZone(identifier: timeZone) else { return }
        // The last of the others had yesterday's shift, so the demo opens with a hand-off to the
        // printed account: its digest is on their dashboard and its message in the outbox.
        let others = members.filter { $0.username != username }
        let ordered = Array(others.suffix(1)) + members.filter { $0.username == username } + Array(others.dropLast())
        // The shift under way began today at 09:00 in Rome, or yesterday when it is earlier than that.
        let today = LocalDate(now, in: zone)
        let current = today.instant(at: handoff, in: zone) <= now ? today : today.adding(days: -1)
        let start = current.adding(days: ordered.count > 1 ? -1 : 0)
        let rotation = try Rotation(members: ordered, shiftDays: 1, handoff: handoff, timeZone: zone, startDate: start)
        let entry = AuditEntry(
            recordedAt: now, actorId: nil, actorUsername: "console demo", action: "rotation.update", targetKind: "oncall", targetId: "1",
            targetSlug: "", targetName: "demo rotation", statusBefore: "", statusAfter: ordered.map(\.username).joined(separator: ", "),
            reason: "", outcome: .succeeded, backendStatus: nil, requestId: "", clientAddress: "", userAgent: "console demo", itemCreatedAt: nil,
            actionId: nil)
        try await store.saveRotation(rotation, audit: entry, now: now)
    }
}
