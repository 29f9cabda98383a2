import Foundation
import ModerationStore

/// One staff member's on-call turns as an iCalendar feed: times on the rotation's clock
/// (`TZID`) with the `VTIMEZONE` that defines it, and UIDs that stay the same from one fetch to
/// the next, so a calendar app updates events instead of doubling them.
struct ShiftCalendar {
    let schedule: OnCallSchedule
    let member: StaffMember
    /// Where the console is, for the events' description; `nil` when it is not configured.
    let consoleURL: String?

    /// `member`'s feed while there is no rotation: the calendar itself, named as it will be, with
    /// no turns. It carries the team's zone because RFC 5545 asks a calendar for one component
    /// at least, and a strict app could refuse one with none.
    static func empty(for member: StaffMember, zone: TimeZone, now: Date) -> String {
        var writer = ICalendarWriter()
        writeHeader(for: member, into: &writer)
        writer.text("X-WR-TIMEZONE", zone.identifier)
        writeTimeZone(zone, from: now.addingTimeInterval(-366 * 86_400), to: now.addingTimeInterval(84 * 86_400), into: &writer)
        writer.end("VCALENDAR")
        return writer.output
    }

    private static func writeHeader(for member: StaffMember, into writer: inout ICalendarWriter) {
        writer.begin("VCALENDAR")
        writer.raw("VERSION", "2.0")
        writer.raw("PRODID", "-//Book Corners//Moderation console//EN")
        writer.raw("CALSCALE", "GREGORIAN")
        writer.raw("METHOD", "PUBLISH")
        writer.text("X-WR-CALNAME", "Book Corners on call: \(member.username)")
    }

    /// Turns from two weeks back to twelve weeks ahead.
    func render(now: Date) -> String {
        let rotation = schedule.rotation
        let zone = rotation.timeZone
        // Whole rotation shifts, so a turn's start (and its UID) does not move as time passes.
        let first = max(0, (rotation.shiftIndex(at: now.addingTimeInterval(-14 * 86_400)) ?? 0))
        let last = (rotation.shiftIndex(at: now.addingTimeInterval(84 * 86_400)) ?? 0) + 1
        let turns = schedule.turns(from: rotation.start(ofShift: first), to: rotation.start(ofShift: last))
        var writer = ICalendarWriter()
        Self.writeHeader(for: member, into: &writer)
        writer.text("X-WR-TIMEZONE", zone.identifier)
        Self.writeTimeZone(zone, from: rotation.start(ofShift: first).addingTimeInterval(-366 * 86_400), to: rotation.start(ofShift: last), into: &writer)
        for (index, turn) in turns.enumerated() where turn.member.id == member.id {
            let before = index > 0 ? turns[index - 1].member.username : nil
            let after = index + 1 < turns.count ? turns[index + 1].member.username : nil
            writer.begin("VEVENT")
            writer.raw("UID", "oncall-\(member.id)-\(Int(turn.startsAt.timeIntervalSince1970))@bookcorners-console")
            writer.raw("DTSTAMP", Self.utc(now))
            writer.raw("DTSTART", Self.local(turn.startsAt, zone), parameters: "TZID=\(zone.identifier)")
            writer.raw("DTEND", Self.local(turn.endsAt, zone), parameters: "TZID=\(zone.identifier)")
            writer.text("SUMMARY", "On call: Book Corners moderation")
            var description = "You are on call for Book Corners moderation."
            if let before { description += "\nTaking over from \(before)." }
            if let after { description += "\nHanding over to \(after)." }
            if let consoleURL { description += "\nConsole: \(consoleURL)" }
            writer.text("DESCRIPTION", description)
            writer.raw("TRANSP", "OPAQUE")
            writer.end("VEVENT")
        }
        writer.end("VCALENDAR")
        return writer.output
    }

    /// The zone's offsets and their changes over the feed's span, each change as its own
    /// observance (no recurrence rules to get wrong); a zone without changes has one.
    static func writeTimeZone(_ zone: TimeZone, from: Date, to: Date, into writer: inout ICalendarWriter) {
        writer.begin("VTIMEZONE")
        writer.raw("TZID", zone.identifier)
        var transitions: [Date] = []
        var cursor = from
        while let next = zone.nextDaylightSavingTimeTransition(after: cursor), next < to, transitions.count < 100 {
            transitions.append(next)
            cursor = next
        }
        if transitions.isEmpty {
            let offset = zone.secondsFromGMT(for: from)
            writer.begin("STANDARD")
            writer.raw("DTSTART", "19700101T000000")
            writer.raw("TZOFFSETFROM", offsetText(offset))
            writer.raw("TZOFFSETTO", offsetText(offset))
            writer.text("TZNAME", zone.abbreviation(for: from) ?? zone.identifier)
            writer.end("STANDARD")
        }
        for transition in transitions {
            let before = zone.secondsFromGMT(for: transition.addingTimeInterval(-1))
            let after = zone.secondsFromGMT(for: transition)
            let kind = zone.isDaylightSavingTime(for: transition) ? "DAYLIGHT" : "STANDARD"
            writer.begin(kind)
            // The onset, on the clock as it read before the change.
            writer.raw("DTSTART", local(transition, offset: before))
            writer.raw("TZOFFSETFROM", offsetText(before))
            writer.raw("TZOFFSETTO", offsetText(after))
            writer.text("TZNAME", zone.abbreviation(for: transition) ?? zone.identifier)
            writer.end(kind)
        }
        writer.end("VTIMEZONE")
    }

    /// `20261124T090000` on the wall clock of `zone`.
    static func local(_ date: Date, _ zone: TimeZone) -> String {
        local(date, offset: zone.secondsFromGMT(for: date))
    }

    static func local(_ date: Date, offset: Int) -> String {
        compact(date.addingTimeInterval(TimeInterval(offset)))
    }

    /// `20261124T080000Z`.
    static func utc(_ date: Date) -> String {
        compact(date) + "Z"
    }

    private static func compact(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { let value = value ?? 0; return value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))"
    }

    /// `+0100`, `-0500`.
    static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return sign + two(minutes / 60) + two(minutes % 60)
    }
}
