import Foundation
import ModerationStore

/// Dates and times as staff type them into the console's forms. The forms use text fields, not
/// the browser's date and time pickers: those follow the browser's locale, which a page cannot
/// set, and showed "11/27/2026" and "09:00 AM" to a 24-hour team. One reading for every form,
/// lenient about what a phone's number pad can type ("0900", "20261127").
enum TeamTimeInput {
    /// What the time fields' `pattern` lets through; the server decides (`time`) and says why not.
    static let timePattern = #"\s*\d{1,2}([:.]?\d{2})?\s*([AaPp]\.?[Mm]\.?)?\s*"#
    static let datePattern = #"\s*\d{4}-?\d{2}-?\d{2}\s*"#
    static let dateAndTimePattern = #"\s*\d{4}-?\d{2}-?\d{2}[T ]\s*\d{1,2}([:.]?\d{2})?\s*([AaPp]\.?[Mm]\.?)?\s*"#

    /// "HH:MM", or "h:mm AM" where the team chose 12-hour: the field's placeholder.
    static func timePlaceholder(twelveHour: Bool) -> String {
        twelveHour ? "h:mm AM" : "HH:MM"
    }

    /// "09:00", "9:00", "0900", "9.00"; "9:00 AM", "9 PM", "12:30 a.m." on either clock (a 24-hour
    /// team reading "9 PM" means 21:00 too). `nil` for a time no clock shows.
    static func time(_ text: String?) -> LocalTime? {
        var rest = (text ?? "").uppercased().filter { !$0.isWhitespace }
        rest = rest.replacingOccurrences(of: "A.M.", with: "AM").replacingOccurrences(of: "P.M.", with: "PM")
        var afternoon: Bool?
        if rest.hasSuffix("AM") || rest.hasSuffix("PM") {
            afternoon = rest.hasSuffix("PM")
            rest.removeLast(2)
        }
        rest = rest.replacingOccurrences(of: ".", with: ":")
        guard !rest.isEmpty, rest.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ":") }) else { return nil }
        let hourText: Substring
        let minuteText: Substring
        if let colon = rest.firstIndex(of: ":") {
            hourText = rest[..<colon]
            minuteText = rest[rest.index(after: colon)...]
            guard minuteText.count == 2 else { return nil }
        } else if rest.count >= 3 {
            hourText = rest.dropLast(2)
            minuteText = rest.suffix(2)
        } else {
            // "9" alone is an hour only beside AM or PM.
            guard afternoon != nil else { return nil }
            hourText = Substring(rest)
            minuteText = "00"
        }
        guard (1...2).contains(hourText.count), var hour = Int(hourText), let minute = Int(minuteText), (0...59).contains(minute) else { return nil }
        if let afternoon {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (afternoon ? 12 : 0)
        }
        guard (0...23).contains(hour) else { return nil }
        return LocalTime(hour: hour, minute: minute)
    }

    /// "2026-11-27" or "20261127"; `nil` for a day no calendar has ("2026-02-30").
    static func date(_ text: String?) -> LocalDate? {
        let trimmed = (text ?? "").trimmingCharacters(in: .whitespaces)
        guard trimmed.count == 8, trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) else { return LocalDate(trimmed) }
        let digits = Array(trimmed)
        return LocalDate(String(digits[0..<4]) + "-" + String(digits[4..<6]) + "-" + String(digits[6..<8]))
    }

    /// "2026-11-27 09:00" (a `T` between them, as older pages sent it, too).
    static func dateAndTime(_ text: String?) -> (LocalDate, LocalTime)? {
        let trimmed = (text ?? "").trimmingCharacters(in: .whitespaces)
        guard let cut = trimmed.firstIndex(where: { $0 == "T" || $0 == " " }), let date = date(String(trimmed[..<cut])),
            let time = time(String(trimmed[trimmed.index(after: cut)...]))
        else { return nil }
        return (date, time)
    }
}
