import Foundation
import ModerationStore

/// The staff's suspect words, matched as whole words or phrases in folded text: "Casino" finds
/// "CASINO night" and "casinò", not "casinos" nor "occasional".
struct SuspectWords {
    /// Each word as typed, with its folded, space-padded form.
    private let words: [(typed: String, folded: String)]

    init(_ list: [String]) {
        words = list.compactMap { typed in
            let folded = Self.padded(typed)
            return folded.trimmingCharacters(in: .whitespaces).isEmpty ? nil : (typed, folded)
        }
    }

    /// The first listed word `text` has, as staff typed it; nil when it has none.
    func first(in text: String) -> String? {
        guard !words.isEmpty else { return nil }
        let haystack = Self.padded(text)
        return words.first { haystack.contains($0.folded) }?.typed
    }

    /// Folded, every run of what is not a letter or digit one space, with a space either side.
    static func padded(_ text: String) -> String {
        let folded = SearchFolding.fold(text)
        var result = " "
        for scalar in folded.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                result.unicodeScalars.append(scalar)
            } else if result.last != " " {
                result += " "
            }
        }
        return result.last == " " ? result : result + " "
    }

    /// The list as staff typed it in a text area (one word or phrase a line): trimmed, a control
    /// character (a tab) read as a space, blank lines dropped, each once (by its folded form), in
    /// the order typed.
    static func parse(_ text: String) -> [String] {
        var seen: Set<String> = []
        return lines(text).compactMap { word in
            let key = padded(word)
            guard key != " ", seen.insert(key).inserted else { return nil }
            return word
        }
    }

    /// The first line with no letter or digit ("📚", "!!!"): the list matches words, so it would never match.
    static func firstUnmatchable(in text: String) -> String? {
        lines(text).first { padded($0) == " " }
    }

    private static func lines(_ text: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            let word = String(String.UnicodeScalarView(line.unicodeScalars.map { $0.isControlCharacter ? " " : $0 }))
                .trimmingCharacters(in: .whitespaces)
            return word.isEmpty ? nil : word
        }
    }
}

extension Unicode.Scalar {
    /// A control character, or the picture a C0 control or DEL becomes at the console's boundary
    /// (`ControlCharacters`: U+2400–U+241F, U+2421), so "␁ctl␡" is read as "ctl".
    fileprivate var isControlCharacter: Bool { properties.generalCategory == .control || (0x2400...0x241F).contains(value) || value == 0x2421 }
}
