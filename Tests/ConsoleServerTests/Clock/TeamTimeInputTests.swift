import Foundation
import ModerationStore
import Testing

@testable import ConsoleServer

/// Issue 47, item 8: how typed dates and times are read, and how times are written.
@Suite("Typed dates and times, and the zone's one name")
struct TeamTimeInputTests {
    @Test("times typed as 24-hour, as a number pad types them, or with AM and PM are read; times no clock shows are not")
    func times() {
        #expect(TeamTimeInput.time("09:00") == LocalTime(hour: 9, minute: 0))
        #expect(TeamTimeInput.time(" 9:05 ") == LocalTime(hour: 9, minute: 5))
        #expect(TeamTimeInput.time("2130") == LocalTime(hour: 21, minute: 30))
        #expect(TeamTimeInput.time("21.30") == LocalTime(hour: 21, minute: 30))
        #expect(TeamTimeInput.time("9:30 PM") == LocalTime(hour: 21, minute: 30))
        #expect(TeamTimeInput.time("12:15 a.m.") == LocalTime(hour: 0, minute: 15))
        #expect(TeamTimeInput.time("9 am") == LocalTime(hour: 9, minute: 0))
        for wrong in ["24:30", "9", "13:00 PM", "09:60", "9:5", "", "noon", "٠٩:٠٠"] {
            #expect(TeamTimeInput.time(wrong) == nil, "\(wrong)")
        }
    }

    @Test("dates typed with or without dashes are read; a day no calendar has is not")
    func dates() {
        #expect(TeamTimeInput.date("2026-11-27") == LocalDate("2026-11-27"))
        #expect(TeamTimeInput.date("20261127") == LocalDate("2026-11-27"))
        #expect(TeamTimeInput.date("2026-02-30") == nil)
        #expect(TeamTimeInput.date("11/27/2026") == nil)
        #expect(TeamTimeInput.dateAndTime("2026-11-27 09:00")?.1 == LocalTime(hour: 9, minute: 0))
        #expect(TeamTimeInput.dateAndTime("2026-11-27T21:30")?.1 == LocalTime(hour: 21, minute: 30))
        #expect(TeamTimeInput.dateAndTime("2026-11-27 9:00 PM")?.1 == LocalTime(hour: 21, minute: 0))
        #expect(TeamTimeInput.dateAndTime("2026-11-27") == nil)
    }

    @Test("Rome's times on both sides of a clock change carry one name; today, tomorrow and yesterday are said as words")
    func oneNameAndToday() throws {
        let rome = OnCallTimeText(zone: try #require(TimeZone(identifier: "Europe/Rome")))
        let winter = try #require(ISOTime.parse("2027-01-12T08:00:00Z"))
        let summer = try #require(ISOTime.parse("2027-07-12T07:00:00Z"))
        #expect(rome.stamp(winter) == "2027-01-12 09:00 Rome time")
        #expect(rome.stamp(summer) == "2027-07-12 09:00 Rome time")
        #expect(rome.offset(winter) == "UTC+1" && rome.offset(summer) == "UTC+2")
        let now = try #require(ISOTime.parse("2027-01-12T06:00:00Z"))
        #expect(rome.dayAndTime(winter, now: now) == "today 09:00 Rome time")
        #expect(rome.dayAndTime(winter.addingTimeInterval(86_400), now: now) == "tomorrow 09:00 Rome time")
        #expect(rome.dayAndTime(winter.addingTimeInterval(-86_400), now: now) == "yesterday 09:00 Rome time")
        #expect(rome.dayAndTime(winter.addingTimeInterval(2 * 86_400), now: now) == "Thu 2027-01-14 09:00 Rome time")
        // 23:30 UTC is already tomorrow on Rome's clock.
        #expect(rome.dayAndTime(try #require(ISOTime.parse("2027-01-12T23:30:00Z")), now: now) == "tomorrow 00:30 Rome time")
    }
}
