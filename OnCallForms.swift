import Foundation
import ModerationStore

/// The rotation form as sent: members one username a line, in order.
struct RotationForm: Decodable, Sendable {
    var members: String?
    var shiftDays: String?
    var handoff: String?
    var timeZone: String?
    var startDate: String?

    /// The form filled in from the rotation there is (or sensible first values).
    init(rotation: Rotation?) {
        members = rotation?.members.map(\.username).joined(separator: "\n") ?? ""
        shiftDays = rotation.map { String($0.shiftDays) } ?? "7"
        handoff = rotation?.handoff.description ?? "09:00"
        timeZone = rotation?.timeZone.identifier ?? "Europe/Rome"
        startDate = rotation?.startDate.description ?? ""
    }

    /// The rotation it describes, or why it describes none; `staff` are the people the console knows.
    func rotation(staff: [StaffMember]) throws(RotationError) -> Rotation {
        let names = (members ?? "").split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "," })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var people: [StaffMember] = []
        for name in names {
            guard let person = staff.first(where: { $0.username == name }) else { throw .unknownStaff(name) }
            people.append(person)
        }
        let daysText = (shiftDays ?? "").trimmingCharacters(in: .whitespaces)
        guard let days = Int(daysText) else { throw .shiftTooShort(0) }
        let handoffText = (handoff ?? "").trimmingCharacters(in: .whitespaces)
        guard let time = LocalTime(String(handoffText.prefix(5))), handoffText.count <= 8 else { throw .badHandoffTime(handoffText) }
        let zoneText = (timeZone ?? "").trimmingCharacters(in: .whitespaces)
        guard !zoneText.isEmpty, let zone = TimeZone(identifier: zoneText) else { throw .unknownTimeZone(zoneText) }
        let dateText = (startDate ?? "").trimmingCharacters(in: .whitespaces)
        guard let date = LocalDate(dateText) else { throw .badStartDate(dateText) }
        return try Rotation(members: people, shiftDays: days, handoff: time, timeZone: zone, startDate: date)
    }
}

/// The add-override form: who covers, from and to as `datetime-local` values on the rotation's clocks.
struct OverrideForm: Decodable, Sendable {
    var staff: String?
    var startsAt: String?
    var endsAt: String?
    var note: String?

    init() {}

    /// Why an override form cannot be stored, in words staff can act on.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case rotation(RotationError)
        case badTime(String)
        case noRotation

        var description: String {
            switch self {
            case .rotation(let error): error.description
            case .badTime(let text): "“\(text)” is not a date and time: pick one, e.g. 2026-11-24 09:00."
            case .noRotation: "Set up the rotation first: overrides are laid over it."
            }
        }
    }

    /// The staff member and span it asks for, read on `zone`'s clocks.
    func parsed(staff known: [StaffMember], zone: TimeZone) throws(Problem) -> (staff: StaffMember, startsAt: Date, endsAt: Date, note: String) {
        let id = Int((staff ?? "").trimmingCharacters(in: .whitespaces))
        guard let person = known.first(where: { $0.id == id }) else { throw .rotation(.unknownStaff(staff ?? "")) }
        let start = try Self.instant(startsAt ?? "", zone: zone)
        let end = try Self.instant(endsAt ?? "", zone: zone)
        guard end > start else { throw .rotation(.overrideEndsBeforeStart) }
        guard end.timeIntervalSince(start) <= 60 * 86_400 else { throw .rotation(.overrideTooLong) }
        return (person, start, end, String((note ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(500)))
    }

    /// `2026-11-24T09:00` (seconds allowed) on the wall clocks of `zone`.
    static func instant(_ text: String, zone: TimeZone) throws(Problem) -> Date {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "T", maxSplits: 1)
        guard parts.count == 2, let date = LocalDate(String(parts[0])), parts[1].count >= 5,
            let time = LocalTime(String(parts[1].prefix(5)))
        else { throw .badTime(text) }
        return date.instant(at: time, in: zone)
    }
}
