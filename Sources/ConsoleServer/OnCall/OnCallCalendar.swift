import Foundation
import ModerationStore
import Mustache

/// Four weeks of the schedule as a table: weeks as rows, Monday first, each day saying who is
/// on call and when that changes, on the rotation's clock.
struct OnCallCalendar: MustacheParent {
    struct Entry: MustacheParent {
        /// "09:00" where someone takes over during the day; "" for whoever carries on from the day before.
        let time: String
        let hasTime: Bool
        let name: String
        let isOverride: Bool
        let isViewer: Bool

        func child(named key: String) -> Any? {
            switch key {
            case "time": time
            case "hasTime": hasTime
            case "name": name
            case "isOverride": isOverride
            case "isViewer": isViewer
            default: nil
            }
        }
    }

    struct Day: MustacheParent {
        let label: String
        let isoDate: String
        let isToday: Bool
        let isPast: Bool
        let isViewerOnCall: Bool
        let entries: [Entry]
        let isEmpty: Bool
        let classes: String

        func child(named key: String) -> Any? {
            switch key {
            case "label": label
            case "isoDate": isoDate
            case "isToday": isToday
            case "isPast": isPast
            case "isViewerOnCall": isViewerOnCall
            case "entries": entries
            case "isEmpty": isEmpty
            case "classes": classes
            default: nil
            }
        }
    }

    struct Week: MustacheParent {
        let days: [Day]

        func child(named key: String) -> Any? {
            switch key {
            case "days": days
            default: nil
            }
        }
    }

    static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    let weeks: [Week]

    /// The four weeks from the Monday of the week `now` falls in.
    init(schedule: OnCallSchedule, viewerID: Int, now: Date, weeks count: Int = 4) {
        let zone = schedule.rotation.timeZone
        let clock = TeamClock.current.on(zone)
        let today = LocalDate(now, in: zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // Calendar weekday: 1 = Sunday … 7 = Saturday; Monday starts the row.
        let weekday = calendar.component(.weekday, from: today.instant(at: LocalTime(hour: 12, minute: 0), in: zone))
        let monday = today.adding(days: -((weekday + 5) % 7))
        let midnight = LocalTime(hour: 0, minute: 0)
        let stretches = schedule.stretches(
            from: monday.instant(at: midnight, in: zone), to: monday.adding(days: 7 * count).instant(at: midnight, in: zone))
        weeks = (0..<count).map { week in
            Week(
                days: (0..<7).map { offset in
                    let date = monday.adding(days: week * 7 + offset)
                    let start = date.instant(at: midnight, in: zone)
                    let end = date.adding(days: 1).instant(at: midnight, in: zone)
                    var entries: [Entry] = []
                    for stretch in stretches where stretch.endsAt > start && stretch.startsAt < end {
                        if let last = entries.last, last.name == stretch.member.username, last.isOverride == (stretch.overrideID != nil) { continue }
                        let carriesOn = stretch.startsAt <= start
                        entries.append(
                            Entry(
                                time: carriesOn ? "" : clock.time(stretch.startsAt), hasTime: !carriesOn, name: stretch.member.username,
                                isOverride: stretch.overrideID != nil, isViewer: stretch.member.id == viewerID))
                    }
                    let isToday = date == today
                    let isPast = date < today
                    let mine = entries.contains { $0.isViewer }
                    let classes = [isToday ? "today" : nil, isPast ? "past" : nil, mine ? "mine" : nil].compactMap { $0 }.joined(separator: " ")
                    return Day(
                        label: clock.day(start), isoDate: date.description, isToday: isToday, isPast: isPast, isViewerOnCall: mine,
                        entries: entries, isEmpty: entries.isEmpty, classes: classes)
                })
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "weeks": weeks
        default: nil
        }
    }
}
