import Foundation

/// An integer read from text the way the real backend's validation (pydantic, lax mode)
/// reads one: surrounding spaces ignored, a zero fraction (`20.0`) accepted, and no upper
/// bound, since Python's integers have none.
enum LaxInteger: Equatable {
    case value(Int)
    /// A well-formed integer beyond `Int`'s range; `negative` says which end.
    case outOfRange(negative: Bool)
    case invalid

    init(_ text: String) {
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        if let dot = digits.firstIndex(of: ".") {
            guard digits[digits.index(after: dot)...].allSatisfy({ $0 == "0" }) else { self = .invalid; return }
            digits = digits[..<dot]
        }
        let negative = digits.first == "-"
        let magnitude = digits.first == "-" || digits.first == "+" ? digits.dropFirst() : digits
        guard !magnitude.isEmpty, magnitude.allSatisfy({ $0.isASCII && $0.isNumber }) else { self = .invalid; return }
        if let value = Int(digits) {
            self = .value(value)
        } else {
            self = .outOfRange(negative: negative)
        }
    }
}
