import Foundation

/// ISO 8601 UTC times with milliseconds (`2026-11-22T08:03:57.123Z`), written by hand:
/// exports write two per row, and Foundation's formatters would be most of the cost.
public enum ISOTime {
    public static func string(_ date: Date) -> String {
        var bytes: [UInt8] = []
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func append(_ date: Date, to bytes: inout [UInt8]) {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, dayMillis) = millis.quotientAndRemainder(dividingBy: 86_400_000)
        let (civilDays, msOfDay) = dayMillis < 0 ? (days - 1, dayMillis + 86_400_000) : (days, dayMillis)
        let (year, month, day) = civil(fromDays: civilDays)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                bytes.append(UInt8(48 + (rest / divisor) % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4); bytes.append(45); digits(month, 2); bytes.append(45); digits(day, 2)
        bytes.append(84)
        digits(msOfDay / 3_600_000, 2); bytes.append(58)
        digits(msOfDay / 60_000 % 60, 2); bytes.append(58)
        digits(msOfDay / 1000 % 60, 2); bytes.append(46)
        digits(msOfDay % 1000, 3); bytes.append(90)
    }

    /// Reads `yyyy-MM-ddTHH:mm:ss[.SSS]Z`; anything else is `nil`.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20 || bytes.count == 24, bytes.last == 90, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84,
            bytes[13] == 58, bytes[16] == 58
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var millis: Int64 = 0
        if bytes.count == 24 {
            guard bytes[19] == 46, let fraction = number(20..<23) else { return nil }
            millis = fraction
        }
        let days = days(fromCivil: year, month, day)
        let total = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
        return Date(timeIntervalSince1970: Double(total) / 1000)
    }

    /// `2026-11-22`: the UTC day of `date`.
    public static func day(_ date: Date) -> String {
        String(string(date).prefix(10))
    }

    /// Reads a day, `yyyy-MM-dd`, as its first instant in UTC.
    public static func parseDay(_ text: String) -> Date? {
        text.utf8.count == 10 ? parse(text + "T00:00:00Z") : nil
    }

    // Howard Hinnant's days-from-civil algorithms.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
