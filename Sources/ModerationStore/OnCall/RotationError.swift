import ModerationVocabulary

/// Why a rotation or an override was refused, in words staff can act on.
public enum RotationError: Error, Equatable, CustomStringConvertible, Sendable {
    case noMembers
    case repeatedMember(String)
    case unknownStaff(String)
    case shiftTooShort(Int)
    case badShiftDays(String)
    case shiftTooLong(Int)
    case badHandoffTime(String)
    case badStartDate(String)
    case unknownTimeZone(String)
    case overrideEndsBeforeStart
    case overrideTooLong
    case noSuchOverride
    case noOneToAdd
    case alreadyListed(String)
    case unknownListChange
    case typedNotAdded(String)
    case changedMeanwhile

    public var description: String {
        switch self {
        case .noMembers:
            "A rotation needs at least one staff member: add someone to it."
        case .repeatedMember(let name):
            "\(name) is in the rotation twice: list each person once."
        case .unknownStaff(let name):
            "The console does not know a staff member called \(TypedText.isolated(name)): they must sign in once first."
        case .shiftTooShort(let days):
            "A shift lasts at least 1 day, not \(days)."
        case .badShiftDays(let text):
            "“\(TypedText.isolated(text))” is not a number of days: write a whole number from 1 to 28."
        case .shiftTooLong(let days):
            "A shift lasts at most 28 days, not \(days)."
        case .badHandoffTime(let text):
            "“\(TypedText.isolated(text))” is not a time of day: write it as 09:00."
        case .badStartDate(let text):
            "“\(TypedText.isolated(text))” is not a date: write it as 2026-11-23."
        case .unknownTimeZone(let name):
            "“\(TypedText.isolated(name))” is not a time zone: use an IANA name such as Europe/Rome."
        case .overrideEndsBeforeStart:
            "An override must end after it starts."
        case .overrideTooLong:
            "An override lasts at most 60 days: add a rotation change instead."
        case .noSuchOverride:
            "That override no longer exists: someone removed it."
        case .noOneToAdd:
            "Pick someone from the list, or type their username, then press Add."
        case .alreadyListed(let name):
            "\(TypedText.isolated(name)) is in the rotation already."
        case .typedNotAdded(let name):
            "\(TypedText.isolated(name)) is typed in the add field but not added: press Add to the rotation, or empty the field, then save."
        case .changedMeanwhile:
            "Someone changed the rotation while you were editing it: look at it as it stands now, then save your change again."
        case .unknownListChange:
            "That button does not match the list as it stands: use the buttons next to the names shown."
        }
    }
}
