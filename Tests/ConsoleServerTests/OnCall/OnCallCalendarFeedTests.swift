import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// The calendar feed as calendar apps read it: RFC 5545 text that a real parser (Python's
/// `icalendar`) accepts, with each shift at its local time across a clock change.
@Suite("iCalendar feed")
struct OnCallCalendarFeedTests {
    static let parser = """
        import sys, icalendar
        calendar = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
        for event in calendar.walk('VEVENT'):
            start = event.decoded('DTSTART')
            print('|'.join([str(event['UID']), start.strftime('%Y-%m-%d'), start.strftime('%H:%M'), str(start.utcoffset().total_seconds()), event.decoded('DTEND').strftime('%H:%M'), str(event['SUMMARY'])]))
        """

    /// Each event the parser found: uid, local start date, local start time, UTC offset in seconds, local end time, summary.
    static func parse(_ text: String) throws -> [[String]] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try text.write(toFile: directory.path("feed.ics"), atomically: true, encoding: .utf8)
        try parser.write(toFile: directory.path("parse.py"), atomically: true, encoding: .utf8)
        let run = try ChildProcess.run("/usr/bin/python3", [directory.path("parse.py"), directory.path("feed.ics")])
        #expect(run.status == 0, "the parser refused the feed: \(run.errorOutput)")
        return run.output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    func rotation() throws -> Rotation {
        let zone: TimeZone? = TimeZone(identifier: "Europe/Rome")
        return try Rotation(
            members: [StaffMember(id: 1, username: "alice"), StaffMember(id: 2, username: "bob")], shiftDays: 1,
            handoff: LocalTime(hour: 9, minute: 0), timeZone: try #require(zone), startDate: try #require(LocalDate("2026-03-01")))
    }

    @Test("a feed across the spring clock change parses, every shift starting 09:00 local, with the right offset")
    func parsesAcrossClockChange() throws {
        // setup: bob's shifts around 29 March 2026, when Rome moves from +01:00 to +02:00
        let schedule = OnCallSchedule(rotation: try rotation(), overrides: [])
        let now = try #require(ISO8601DateFormatter().date(from: "2026-03-20T12:00:00Z"))
        // act
        let feed = ShiftCalendar(schedule: schedule, member: StaffMember(id: 2, username: "bob"), consoleURL: "https://console.example").render(now: now)
        let events = try Self.parse(feed)
        // check: the RFC's line rules
        #expect(feed.hasSuffix("END:VCALENDAR\r\n"))
        #expect(!feed.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
        for line in feed.components(separatedBy: "\r\n") { #expect(line.utf8.count <= 75, "\(line)") }
        #expect(feed.contains("BEGIN:VTIMEZONE") && feed.contains("TZID:Europe/Rome") && feed.contains("BEGIN:DAYLIGHT"))
        // check: bob has every other day, 09:00 to 09:00 local, one hour more ahead of UTC after the change
        #expect(events.count >= 40)
        #expect(events.allSatisfy { $0.count == 6 && $0[2] == "09:00" && $0[4] == "09:00" && $0[5] == "On call: Book Corners moderation" })
        let march26 = try #require(events.first { $0[1] == "2026-03-26" })
        let march28 = try #require(events.first { $0[1] == "2026-03-28" })
        let march30 = try #require(events.first { $0[1] == "2026-03-30" })
        #expect(march26[3] == "3600.0" && march30[3] == "7200.0")
        #expect(march28[2] == "09:00" && march28[3] == "3600.0", "the shift that spans the change starts before it")
        // check: the same shifts keep their UIDs on the next fetch, an hour later
        let again = try Self.parse(
            ShiftCalendar(schedule: schedule, member: StaffMember(id: 2, username: "bob"), consoleURL: nil)
                .render(now: now.addingTimeInterval(3_600)))
        #expect(Set(again.map { $0[0] }) == Set(events.map { $0[0] }))
    }

    @Test("long lines fold at 75 octets without splitting a character, and TEXT values are escaped")
    func foldingAndEscaping() {
        // setup: 3-byte and 4-byte characters around the fold
        let value = "Über 📚 " + String(repeating: "ü", count: 40) + "; a, b\\c\nnext"
        // act
        var writer = ICalendarWriter()
        writer.text("DESCRIPTION", value)
        // check
        let lines = writer.output.components(separatedBy: "\r\n").dropLast()
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        let unfolded = writer.output.replacingOccurrences(of: "\r\n ", with: "")
        #expect(unfolded == "DESCRIPTION:Über 📚 " + String(repeating: "ü", count: 40) + "\\; a\\, b\\\\c\\nnext\r\n")
    }
}
