import Foundation
import ModerationStore

/// The rotation form as sent: members one per line (or comma-separated), in order.
struct RotationForm: Decodable, Sendable {
    var members: String?
    var shiftDays: String?
    var handoff: String?
    var timeZone: String?
    var startDate: String?

    /// The rotation this form describes, with the staff it names looked up in `staff`.
    func rotation(staff: [StaffMember]) throws(RotationError) -> Rotation {
        // Browsers send a textarea's line breaks as CR LF, which Swift reads as one Character
        // equal to neither "\r" nor "\n": `isNewline` covers it, and bare LF or CR too.
        let names = (members ?? "").split { $0.isNewline || $0 == "," }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var chosen: [StaffMember] = []
        for name in names {
            guard let member = staff.first(where: { $0.username.caseInsensitiveCompare(name) == .orderedSame }) else {
                throw .unknownStaff(String(name.prefix(60)))
            }
            chosen.append(member)
        }
        let daysText = (shiftDays ?? "").trimmingCharacters(in: .whitespaces)
        guard let days = Int(daysText) else { throw .shiftTooShort(0) }
        let handoffText = (handoff ?? "").trimmingCharacters(in: .whitespaces)
        guard let time = LocalTime(handoffText) else { throw .badHandoffTime(String(handoffText.prefix(20))) }
        let zoneText = (timeZone ?? "").trimmingCharacters(in: .whitespaces)
        guard zoneText.contains("/") || zoneText == "UTC", let zone = TimeZone(identifier: zoneText) else {
            throw .unknownTimeZone(String(zoneText.prefix(60)))
        }
        let dateText = (startDate ?? "").trimmingCharacters(in: .whitespaces)
        guard let start = LocalDate(dateText) else { throw .badStartDate(String(dateText.prefix(20))) }
        return try Rotation(members: chosen, shiftDays: days, handoff: time, timeZone: zone, startDate: start)
    }
}

/// "staff covers from … to …": times as a `datetime-local` input sends them, on the rotation's clock.
struct OverrideForm: Decodable, Sendable {
    var staff: String?
    var startsAt: String?
    var endsAt: String?
    var note: String?

    static let noteLimit = 200

    /// `2026-11-24T09:00` on the wall clock of `zone`.
    static func instant(_ text: String?, in zone: TimeZone) -> Date? {
        let parts = (text ?? "").trimmingCharacters(in: .whitespaces).split(separator: "T")
        guard parts.count == 2, let date = LocalDate(String(parts[0])), let time = LocalTime(String(parts[1].prefix(5))) else { return nil }
        return date.instant(at: time, in: zone)
    }
}
