import Foundation
import ModerationStore
import Testing

@testable import ConsoleServer

/// A console database with a rotation of known members and known dates, and helpers to write
/// decisions and mirror rows at known times, for the hand-off tests.
struct HandoffFixture {
    let store: ModerationStore
    let rotation: Rotation

    /// Writes `members` as staff and a rotation of `shiftDays`-day shifts handing off at
    /// `handoff` in `zone` from `startDate`.
    init(path: String, members: [StaffMember], shiftDays: Int, handoff: LocalTime, zone: TimeZone, startDate: LocalDate) async throws {
        store = try ModerationStore(path: path)
        for member in members { try await store.recordStaffMember(member, signedInAt: nil) }
        rotation = try Rotation(members: members, shiftDays: shiftDays, handoff: handoff, timeZone: zone, startDate: startDate)
        try await store.saveRotation(rotation, audit: Self.entry("rotation.save", by: members[0], at: Date()), now: Date())
    }

    /// An audit entry as the console writes one.
    static func entry(
        _ action: String, by actor: StaffMember, at time: Date, kind: String = "rotation", target: String = "", outcome: AuditOutcome = .succeeded
    ) -> AuditEntry {
        AuditEntry(
            recordedAt: time, actorId: actor.id, actorUsername: actor.username, action: action, targetKind: kind, targetId: target,
            targetSlug: "", targetName: "Item \(target)", statusBefore: "pending", statusAfter: "approved", reason: "", outcome: outcome,
            backendStatus: outcome == .applied ? 200 : nil, requestId: "r", clientAddress: "127.0.0.1", userAgent: "test",
            itemCreatedAt: time.addingTimeInterval(-86_400), actionId: nil)
    }

    /// A decision as `ActionRunner` records it: `action` is `library.approve`, `report.resolve`, ….
    func decide(_ action: String, by actor: StaffMember, at time: Date, outcome: AuditOutcome = .applied) async throws {
        let kind = String(action.prefix { $0 != "." })
        try await store.appendAudit(
            Self.entry(action, by: actor, at: time, kind: kind, target: "\(Int(time.timeIntervalSince1970) % 100_000)", outcome: outcome))
    }

    static func library(_ id: Int, name: String, createdAt: Date) -> MirrorLibrary {
        MirrorLibrary(
            id: id, slug: "library-\(id)", name: name, description: "", address: "Via Roma 1", city: "Florence", country: "IT",
            postalCode: "50100", lat: 43.77, lng: 11.25, photoUrl: "", thumbnailUrl: "", status: .pending, rejectionReason: "",
            submitterId: nil, submitterUsername: nil, createdAt: createdAt, lastConfirmedAt: createdAt)
    }

    static func report(_ id: Int, libraryName: String, createdAt: Date) -> MirrorReport {
        MirrorReport(
            id: id, libraryId: 5_000 + id, librarySlug: "reported-\(id)", libraryName: libraryName, libraryAddress: "", libraryCity: "Rome",
            libraryCountry: "IT", libraryStatus: .approved, reporterId: nil, reporterUsername: nil, reason: .damaged, details: "",
            photoUrl: "", status: .open, createdAt: createdAt, lastConfirmedAt: createdAt)
    }

    static func summary(at time: Date) -> MirrorSummary {
        MirrorSummary(pendingLibraries: 4, openReports: 2, pendingPhotos: 0, totalPending: 6, totalLibraries: 100, totalUsers: 50, lastConfirmedAt: time)
    }
}
