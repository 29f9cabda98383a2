import Foundation
import ModerationStore
import Testing

/// The schedule is computed: shifts in order, hand-offs at local time across daylight-saving
/// changes, overrides laid over the rotation.
@Suite struct OnCallScheduleTests {
    let alice = StaffMember(id: 1, username: "alice")
    let bob = StaffMember(id: 2, username: "bob")
    let carol = StaffMember(id: 3, username: "carol")

    func rotation(_ members: [StaffMember], days: Int, zone: String, start: String, handoff: String = "09:00") throws -> Rotation {
        let timeZone: TimeZone? = TimeZone(identifier: zone)
        return try Rotation(
            members: members, shiftDays: days, handoff: try #require(LocalTime(handoff)), timeZone: try #require(timeZone),
            startDate: try #require(LocalDate(start)))
    }

    func instant(_ text: String) throws -> Date {
        try #require(ISO8601DateFormatter().date(from: text))
    }

    func localTime(_ date: Date, _ zone: String) throws -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    @Test("One-day shifts take turns in order and hand off at 09:00 local")
    func oneDayShifts() throws {
        let rotation = try rotation([alice, bob, carol], days: 1, zone: "Europe/Rome", start: "2026-11-02")
        let schedule = OnCallSchedule(rotation: rotation, overrides: [])
        // check: before the start nobody; then alice, bob, carol, alice
        #expect(schedule.member(at: try instant("2026-11-02T07:59:00Z")) == nil)
        #expect(schedule.member(at: try instant("2026-11-02T08:00:00Z")) == alice)
        #expect(schedule.member(at: try instant("2026-11-03T07:59:59Z")) == alice)
        #expect(schedule.member(at: try instant("2026-11-03T08:00:00Z")) == bob)
        #expect(schedule.member(at: try instant("2026-11-04T12:00:00Z")) == carol)
        #expect(schedule.member(at: try instant("2026-11-05T12:00:00Z")) == alice)
    }

    @Test("Seven-day shifts: a week each")
    func sevenDayShifts() throws {
        let rotation = try rotation([alice, bob], days: 7, zone: "America/New_York", start: "2026-01-05")
        let schedule = OnCallSchedule(rotation: rotation, overrides: [])
        #expect(schedule.member(at: try instant("2026-01-12T13:59:00Z")) == alice)
        #expect(schedule.member(at: try instant("2026-01-12T14:00:00Z")) == bob)
        #expect(schedule.member(at: try instant("2026-01-19T14:00:00Z")) == alice)
        #expect(rotation.shiftIndex(at: try instant("2026-01-19T14:00:00Z")) == 2)
    }

    @Test(
        "Hand-offs stay at 09:00 local across spring and autumn clock changes",
        arguments: [
            ("Europe/Rome", "2026-03-27", "2026-10-23"),
            ("America/New_York", "2026-03-06", "2026-10-30"),
        ])
    func daylightSaving(zone: String, spring: String, autumn: String) throws {
        for start in [spring, autumn] {
            let rotation = try rotation([alice, bob], days: 1, zone: zone, start: start)
            let handoffs = (0..<5).map { rotation.start(ofShift: $0) }
            // check: every hand-off is at 09:00 on consecutive local days, though one day is 23 or 25 hours
            for (index, handoff) in handoffs.enumerated() {
                let expectedDate = try #require(LocalDate(start)).adding(days: index)
                #expect(try localTime(handoff, zone) == "\(expectedDate) 09:00")
            }
            let lengths = Set(zip(handoffs, handoffs.dropFirst()).map { Int($1.timeIntervalSince($0) / 3_600) })
            #expect(lengths.contains(24))
            #expect(lengths.contains(start == spring ? 23 : 25))
        }
    }

    @Test("An override takes precedence, the latest added wins, and stretches split around it")
    func overrides() throws {
        let rotation = try rotation([alice, bob], days: 7, zone: "Europe/Rome", start: "2026-11-02")
        let cover = RotationOverride(
            id: 1, staff: carol, startsAt: try instant("2026-11-04T17:00:00Z"), endsAt: try instant("2026-11-05T17:00:00Z"), note: "",
            createdBy: "alice", createdAt: try instant("2026-11-01T00:00:00Z"))
        let later = RotationOverride(
            id: 2, staff: bob, startsAt: try instant("2026-11-05T08:00:00Z"), endsAt: try instant("2026-11-05T09:00:00Z"), note: "",
            createdBy: "bob", createdAt: try instant("2026-11-01T01:00:00Z"))
        let schedule = OnCallSchedule(rotation: rotation, overrides: [later, cover])
        #expect(schedule.member(at: try instant("2026-11-04T16:59:00Z")) == alice)
        #expect(schedule.member(at: try instant("2026-11-04T17:00:00Z")) == carol)
        #expect(schedule.member(at: try instant("2026-11-05T08:30:00Z")) == bob)
        #expect(schedule.member(at: try instant("2026-11-05T17:00:00Z")) == alice)
        let stretches = schedule.stretches(from: try instant("2026-11-02T08:00:00Z"), to: try instant("2026-11-09T08:00:00Z"))
        #expect(stretches.map(\.member.username) == ["alice", "carol", "bob", "carol", "alice"])
        #expect(stretches.map(\.overrideID) == [nil, 1, 2, 1, nil])
        let (now, next) = schedule.nowAndNext(at: try instant("2026-11-03T12:00:00Z"))
        #expect(now?.member == alice)
        #expect(now?.endsAt == (try instant("2026-11-04T17:00:00Z")))
        #expect(next?.member == carol)
    }

    @Test("A rotation is refused with words when it cannot make a schedule")
    func refusals() throws {
        #expect(throws: RotationError.noMembers) { try rotation([], days: 1, zone: "Europe/Rome", start: "2026-11-02") }
        #expect(throws: RotationError.shiftTooShort(0)) { try rotation([alice], days: 0, zone: "Europe/Rome", start: "2026-11-02") }
        #expect(throws: RotationError.repeatedMember("alice")) { try rotation([alice, alice], days: 1, zone: "Europe/Rome", start: "2026-11-02") }
        #expect(LocalDate("2026-02-30") == nil)
        #expect(LocalTime("24:10") == nil)
        #expect(LocalTime("9:05")?.description == "09:05")
    }
}
