import Foundation
import ModerationStore

/// The rotation form as sent: members one per line (or comma-separated), in order.
struct RotationForm: Decodable, Sendable {
    /// The rotation's staff in turn order, one field per person (the page's list).
    var member: RepeatedField?
    /// The same as one text, a username per line (older pages, scripts).
    var members: String?
    var shiftDays: String?
    var handoff: String?
    var timeZone: String?
    var startDate: String?
    /// Which button sent the form: `save`, `add`, `up:N`, `down:N`, `remove:N`, or `enter`
    /// (the Enter key: adds what the add fields hold, else saves).
    var edit: String?
    /// Someone to add, picked from the staff the console knows.
    var add: String?
    /// Someone to add, typed.
    var addUsername: String?
    /// The staff ids of the person on call now and the one the change puts there, as the page
    /// that asked to confirm the change showed them (`edit` is `confirm`).
    var handOverFrom: String?
    var handOverTo: String?

    private enum CodingKeys: String, CodingKey {
        case member, members, shiftDays, handoff, timeZone, startDate, edit, add, handOverFrom, handOverTo
        case addUsername = "add_username"
    }

    /// An IANA zone as typed. Abbreviations such as "CET" are refused (several zones share one);
    /// UTC and GMT are one zone.
    static func zone(_ text: String?) throws(RotationError) -> TimeZone {
        let zoneText = (text ?? "").trimmingCharacters(in: .whitespaces)
        guard zoneText.contains("/") || zoneText == "UTC" || zoneText == "GMT", let zone = TimeZone(identifier: zoneText) else {
            throw .unknownTimeZone(String(zoneText.prefix(60)))
        }
        return zone
    }

    /// The usernames the form lists, in turn order.
    var names: [String] {
        if let member { return member.values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        // Browsers send a textarea's line breaks as CR LF, which Swift reads as one Character
        // equal to neither "\r" nor "\n": `isNewline` covers it, and bare LF or CR too.
        return (members ?? "").split { $0.isNewline || $0 == "," }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whoever the add fields name: the typed username before the picked one.
    var addedName: String? {
        [addUsername, add].compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
    }

    /// The list after the button pressed, or nil when the form is to be saved. Someone added
    /// must be known to the console (it needs their Book Corners id) and not listed already.
    func edited(staff: [StaffMember]) throws(RotationError) -> [String]? {
        var names = self.names
        // No button named (an older page, a script): add what the add fields hold, else save.
        let button = edit ?? "enter"
        // "save", "add", "enter" alone; "up", "down", "remove" with a row number in plain digits.
        let parts = button.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let row = parts.count == 2 && !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && $0.isNumber } ? Int(parts[1]) : nil
        let action = parts.count == 1 || row != nil ? parts[0] : ""
        switch (action, row) {
        case ("save", nil), ("confirm", nil):
            // A name typed but not added is not dropped without a word.
            if let typed = addUsername?.trimmingCharacters(in: .whitespaces), !typed.isEmpty { throw .typedNotAdded(String(typed.prefix(60))) }
            return nil
        case ("add", nil), ("enter", nil):
            // Enter with nothing to add means Save rotation.
            guard let name = addedName else {
                if button == "enter" { return nil }
                throw .noOneToAdd
            }
            guard let member = staff.first(where: { $0.username.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw .unknownStaff(String(name.prefix(60)))
            }
            guard !names.contains(where: { $0.caseInsensitiveCompare(member.username) == .orderedSame }) else {
                throw .alreadyListed(member.username)
            }
            names.append(member.username)
        case ("up", let index?) where names.indices.contains(index) && index > 0:
            names.swapAt(index, index - 1)
        case ("down", let index?) where names.indices.contains(index) && index < names.count - 1:
            names.swapAt(index, index + 1)
        case ("remove", let index?) where names.indices.contains(index):
            names.remove(at: index)
        default:
            // A button for a list that has changed since (or none the page offers): never a save.
            throw .unknownListChange
        }
        return names
    }

    /// The rotation this form describes, with the staff it names looked up in `staff`.
    func rotation(staff: [StaffMember]) throws(RotationError) -> Rotation {
        var chosen: [StaffMember] = []
        for name in names {
            guard let member = staff.first(where: { $0.username.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw .unknownStaff(String(name.prefix(60)))
            }
            chosen.append(member)
        }
        let daysText = (shiftDays ?? "").trimmingCharacters(in: .whitespaces)
        guard let days = Int(daysText) else { throw .badShiftDays(String(daysText.prefix(20))) }
        let handoffText = (handoff ?? "").trimmingCharacters(in: .whitespaces)
        guard let time = TeamTimeInput.time(handoffText) else { throw .badHandoffTime(String(handoffText.prefix(20))) }
        let zone = try Self.zone(timeZone)
        let dateText = (startDate ?? "").trimmingCharacters(in: .whitespaces)
        guard let start = TeamTimeInput.date(dateText) else { throw .badStartDate(String(dateText.prefix(20))) }
        return try Rotation(members: chosen, shiftDays: days, handoff: time, timeZone: zone, startDate: start)
    }
}

/// "staff covers from … to …": a date and a time typed as "2026-11-24 09:00", on the rotation's clock.
struct OverrideForm: Decodable, Sendable {
    var staff: String?
    var startsAt: String?
    var endsAt: String?
    var note: String?
    /// The page's key for this form (`OnCallPage.overrideKey`): the same form sent twice adds one override.
    var key: String?

    static let noteLimit = 200

    /// `2026-11-24 09:00` on the wall clock of `zone`.
    static func instant(_ text: String?, in zone: TimeZone) -> Date? {
        guard let (date, time) = parts(text) else { return nil }
        return date.instant(at: time, in: zone)
    }

    /// "2027-03-28 02:30" when `text` is a time the clock of `zone` skips (it goes forward that
    /// night): the calendar would quietly move it, and the override would start or end elsewhere.
    static func skipped(_ text: String?, in zone: TimeZone) -> String? {
        guard let (date, time) = parts(text) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let shown = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date.instant(at: time, in: zone))
        let exists = (shown.year, shown.month, shown.day, shown.hour, shown.minute) == (date.year, date.month, date.day, time.hour, time.minute)
        return exists ? nil : "\(date) \(time)"
    }

    private static func parts(_ text: String?) -> (LocalDate, LocalTime)? {
        TeamTimeInput.dateAndTime(text)
    }
}
