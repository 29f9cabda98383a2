import BookCornersAPI
import HummingbirdCore

/// Reads and validates query parameters, collecting every failure in the backend's
/// pydantic shape so one 422 can list them all.
struct QueryReader {
    private let parameters: [String: String]
    private(set) var failures: [FieldFailure] = []

    init(_ uri: URI) {
        // The real backend reads `+` as a space, as forms write it.
        parameters = FormQuery.dictionary(uri.query)
    }

    /// An optional string of at most `maxLength` characters; empty counts as absent.
    mutating func string(_ name: String, maxLength: Int) -> String? {
        guard let value = parameters[name], !value.isEmpty else { return nil }
        guard value.count <= maxLength else {
            fail(name, "string_too_long", "String should have at most \(maxLength) characters", ["max_length": .int(maxLength)])
            return nil
        }
        return value
    }

    /// One of `allowed`, or the default when absent.
    mutating func choice(_ name: String, _ allowed: [String], default fallback: String) -> String {
        guard let value = parameters[name] else { return fallback }
        guard allowed.contains(value) else {
            let expected = Self.expected(allowed)
            fail(name, "enum", "Input should be \(expected)", ["expected": .text(expected)])
            return fallback
        }
        return value
    }

    mutating func integer(_ name: String, in range: ClosedRange<Int>, default fallback: Int) -> Int {
        guard let text = parameters[name] else { return fallback }
        return checkedInteger(name, text, range) ?? fallback
    }

    mutating func optionalInteger(_ name: String, in range: ClosedRange<Int>) -> Int? {
        guard let text = parameters[name], !text.isEmpty else { return nil }
        return checkedInteger(name, text, range)
    }

    mutating func number(_ name: String, in range: ClosedRange<Double>) -> Double? {
        guard let text = parameters[name], !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite else {
            fail(name, "float_parsing", "Input should be a valid number, unable to parse string as a number")
            return nil
        }
        guard value >= range.lowerBound else {
            fail(name, "greater_than_equal", "Input should be greater than or equal to \(Int(range.lowerBound))", ["ge": .int(Int(range.lowerBound))])
            return nil
        }
        guard value <= range.upperBound else {
            fail(name, "less_than_equal", "Input should be less than or equal to \(Int(range.upperBound))", ["le": .int(Int(range.upperBound))])
            return nil
        }
        return value
    }

    mutating func boolean(_ name: String) -> Bool? {
        guard let text = parameters[name]?.lowercased(), !text.isEmpty else { return nil }
        switch text {
        case "true", "1", "yes", "on", "t", "y": return true
        case "false", "0", "no", "off", "f", "n": return false
        default:
            fail(name, "bool_parsing", "Input should be a valid boolean, unable to interpret input")
            return nil
        }
    }

    mutating func fail(_ name: String, _ type: String, _ message: String, _ ctx: [String: FieldFailure.CtxValue]? = nil) {
        failures.append(FieldFailure(type: type, loc: ["query", name], msg: message, ctx: ctx))
    }

    private mutating func checkedInteger(_ name: String, _ text: String, _ range: ClosedRange<Int>) -> Int? {
        let value: Int
        switch LaxInteger(text) {
        case .value(let parsed): value = parsed
        case .outOfRange(let negative): value = negative ? Int.min : Int.max
        case .invalid:
            fail(name, "int_parsing", "Input should be a valid integer, unable to parse string as an integer")
            return nil
        }
        guard value >= range.lowerBound else {
            fail(name, "greater_than_equal", "Input should be greater than or equal to \(range.lowerBound)", ["ge": .int(range.lowerBound)])
            return nil
        }
        guard value <= range.upperBound else {
            fail(name, "less_than_equal", "Input should be less than or equal to \(range.upperBound)", ["le": .int(range.upperBound)])
            return nil
        }
        return value
    }

    /// `'a', 'b' or 'c'`, as pydantic lists enum values.
    static func expected(_ values: [String]) -> String {
        let quoted = values.map { "'\($0)'" }
        guard quoted.count > 1 else { return quoted.joined() }
        return quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
    }
}
