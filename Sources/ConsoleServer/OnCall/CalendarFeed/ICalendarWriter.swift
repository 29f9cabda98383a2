import Foundation

/// Writes iCalendar (RFC 5545) text: CRLF line ends, content lines folded at 75 octets
/// without splitting a UTF-8 sequence, TEXT values escaped.
struct ICalendarWriter {
    private(set) var output = ""

    /// A property whose value is already in iCalendar form (dates, numbers, URIs).
    mutating func raw(_ name: String, _ value: String, parameters: String = "") {
        output += Self.fold(name + (parameters.isEmpty ? "" : ";" + parameters) + ":" + value) + "\r\n"
    }

    /// A TEXT property: backslashes, semicolons, commas and line breaks escaped.
    mutating func text(_ name: String, _ value: String) {
        raw(name, Self.escaped(value))
    }

    mutating func begin(_ component: String) { raw("BEGIN", component) }
    mutating func end(_ component: String) { raw("END", component) }

    static func escaped(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n": result += "\\n"
            case "\r": break
            default:
                // Other control characters are not allowed in TEXT values.
                if scalar.value < 0x20 && scalar != "\t" { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// One content line folded: at most 75 octets per physical line, each continuation
    /// starting with a space, breaks only between Unicode scalars (never inside one's UTF-8).
    static func fold(_ line: String) -> String {
        var result = ""
        var octets = 0
        var limit = 75
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if octets + size > limit {
                result += "\r\n "
                octets = 1
                limit = 75
            }
            result.unicodeScalars.append(scalar)
            octets += size
        }
        return result
    }
}
