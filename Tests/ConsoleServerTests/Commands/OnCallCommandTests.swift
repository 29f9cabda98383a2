import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// `console oncall show`, run as the built binary against a real database file.
@Suite("console oncall", .timeLimit(.minutes(2)))
struct OnCallCommandTests {
    @Test("show prints now and next on the rotation's clock and the coming shifts, overrides marked; no rotation says so")
    func show() async throws {
        // setup: alice and bob in turn, a day each from yesterday in Rome; carol covers the day after tomorrow
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("console.sqlite")
        let store = try ModerationStore(path: path)
        let empty = try ChildProcess.run(ConsoleBinary.path, ["oncall", "show", "--database", path])
        #expect(empty.status == 0 && empty.output == "No on-call rotation yet: set one up on the console's On call page.\n")
        let people = [StaffMember(id: 1, username: "alice"), StaffMember(id: 2, username: "bob"), StaffMember(id: 3, username: "carol")]
        for person in people { try await store.recordStaffMember(person, signedInAt: nil) }
        let zone: TimeZone? = TimeZone(identifier: "Europe/Rome")
        let rome = try #require(zone)
        let today = LocalDate(Date(), in: rome)
        let rotation = try Rotation(
            members: Array(people.prefix(2)), shiftDays: 1, handoff: LocalTime(hour: 9, minute: 0), timeZone: rome, startDate: today.adding(days: -1))
        let entry = AuditEntry(
            recordedAt: Date(), actorId: nil, actorUsername: "test", action: "rotation.update", targetKind: "oncall", targetId: "1", targetSlug: "",
            targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil, requestId: "", clientAddress: "",
            userAgent: "", itemCreatedAt: nil, actionId: nil)
        try await store.saveRotation(rotation, audit: entry, now: Date())
        let coverDay = today.adding(days: 2)
        try await store.addOverride(
            staff: people[2], startsAt: coverDay.instant(at: LocalTime(hour: 9, minute: 0), in: rome),
            endsAt: coverDay.adding(days: 1).instant(at: LocalTime(hour: 9, minute: 0), in: rome), note: "", audit: entry, now: Date())
        // act
        let run = try ChildProcess.run(ConsoleBinary.path, ["oncall", "show", "--database", path, "--days", "5"])
        // check
        #expect(run.status == 0, "\(run.errorOutput)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "Rotation: alice → bob; 1-day shifts handing off at 09:00 Europe/Rome, from \(today.adding(days: -1)).")
        #expect(lines.contains("Times are Rome time."))
        #expect(lines.contains { $0.hasPrefix("Now:  alice until ") || $0.hasPrefix("Now:  bob until ") })
        let clock = OnCallTimeText(zone: rome)
        let start = clock.dayAndTime(coverDay.instant(at: LocalTime(hour: 9, minute: 0), in: rome))
        let end = clock.dayAndTime(coverDay.adding(days: 1).instant(at: LocalTime(hour: 9, minute: 0), in: rome))
        #expect(lines.contains("  \(start) – \(end)  carol  (override)"), "\(run.output)")
        #expect(lines.contains { $0.hasPrefix("  now – ") })
        #expect(lines.filter { $0.hasPrefix("  ") }.count >= 5)
    }
}
