import BookCornersAPI
import Foundation
import Hummingbird
import ModerationVocabulary

/// A queue page's filters, read from the URL and made safe: unknown values fall back to
/// defaults, text is trimmed and bounded, paging is clamped to the backend's limits.
struct ListQuery {
    static let pageSizes = [10, 20, 50]
    static let defaultPageSize = 20
    private let parameters: [String: String]
    /// How many times the address gave each name (the last value counts).
    private let counts: [String: Int]
    /// The names the address gave, each once, in its order.
    private let names: [String]
    /// Names whose value is no text (a broken `%` escape, bytes that are no UTF-8): read as typed.
    private let garbled: [String]

    init(_ request: Request) {
        self.init(query: request.uri.query)
    }

    /// The filters of a query string (`status=pending&order=oldest`), as a form carries a list's.
    init(query: String?) {
        let given = FormQuery.readParameters(query)
        // The last of a repeated name wins, as `FormQuery.dictionary` has it.
        parameters = Dictionary(given.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        counts = given.reduce(into: [:]) { $0[$1.name, default: 0] += 1 }
        var seen: Set<String> = []
        names = given.map(\.name).filter { !$0.isEmpty && seen.insert($0).inserted }
        var garbledSeen: Set<String> = []
        garbled = given.filter { !$0.isText && garbledSeen.insert($0.name).inserted }.map(\.name)
    }

    func text(_ name: String, maxLength: Int) -> String? {
        guard let value = parameters[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return String(value.prefix(maxLength))
    }

    func choice<T: RawRepresentable>(_ name: String, default fallback: T) -> T where T.RawValue == String {
        parameters[name].flatMap(T.init(rawValue:)) ?? fallback
    }

    /// A two-letter country code, upper-cased; anything else is ignored ("Germany" is not "GE").
    var country: String? {
        guard let value = text("country", maxLength: 3)?.uppercased(), value.count == 2, value.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return nil
        }
        return value
    }

    /// The order the URL names, if any and if the list offers it (`offered`).
    func chosenOrder(offered: [QueueOrder] = QueueOrder.byTime) -> QueueOrder? {
        parameters["order"].flatMap(QueueOrder.init(rawValue:)).flatMap { offered.contains($0) ? $0 : nil }
    }

    var page: Page {
        let size = Int(parameters["page_size"] ?? "").flatMap { Self.pageSizes.contains($0) ? $0 : nil } ?? Self.defaultPageSize
        return Page(clampingNumber: pageNumber, size: size)
    }

    /// The page the address names: a number too large for `Int` is past the last page like any
    /// other past it (the list shows its last), not page 1.
    private var pageNumber: Int {
        guard let value = parameters["page"] else { return 1 }
        if let number = Int(value) { return number }
        return !value.isEmpty && value.allSatisfy { $0.isASCII && $0.isNumber } ? Int.max : 1
    }

    /// What a list says of its paging when the address asked for what it could not show: a page
    /// that is no number, a page past the last (`shownPage` is shown instead), a page size it
    /// does not offer.
    func pagingNotes(shownPage: Int) -> [String] {
        var notes: [String] = []
        if let value = parameters["page"], !value.isEmpty {
            switch Int(value) {
            case let number? where number > shownPage: notes.append("There is no page \(number): the last, \(shownPage), is shown.")
            case let number? where number < 1: notes.append("There is no page \(number): pages start at 1.")
            case .some: break
            case nil where pageNumber == Int.max: notes.append("There is no page that far: the last, \(shownPage), is shown.")
            case nil: notes.append("\(Self.quoted(value)) is not a page number, so page \(shownPage) is shown.")
            }
        }
        if let value = parameters["page_size"], !value.isEmpty, !Self.pageSizes.map(String.init).contains(value) {
            let offered = Self.pageSizes.map(String.init).joined(separator: ", ")
            notes.append("\(Self.quoted(value)) is not a page size this list offers (\(offered)), so \(Self.defaultPageSize) are shown.")
        }
        return notes
    }

    /// What a list says of values of `names` (those it reads) the address could not carry as text
    /// (`q=%FF`, `q=a%2`): they are read as typed, `%` and all, and the list says so instead of
    /// searching for them silently.
    func garbledNotes(among names: [String]) -> [String] {
        garbled.filter(names.contains).map {
            "The address's \(Self.quoted($0)) is not readable text (a broken % escape), so it is read as typed: \(Self.quoted(parameters[$0] ?? ""))."
        }
    }

    /// What a list says of the filters among `names` the address gave more than once: the last
    /// value is used, as a form would send it, and the list says so instead of choosing silently.
    func repeated(_ names: [String]) -> [String] {
        names.compactMap { name in
            guard let count = counts[name], count > 1 else { return nil }
            let used = parameters[name].flatMap { $0.isEmpty ? nil : Self.quoted($0) } ?? "an empty one"
            return "“\(name)” was given \(count) times: only the last, \(used), is read."
        }
    }

    /// What a list says of names in the address it reads none of (a misspelt `stauts=approved`,
    /// a filter of another list): ignored, as any unknown filter is, but named instead of
    /// silently showing the unfiltered list. `known` are the names the list reads, and any name
    /// starting with one of `knownPrefixes` is read too.
    func unknown(_ known: [String], knownPrefixes: [String] = []) -> String? {
        let unknown = names.filter { name in !known.contains(name) && !knownPrefixes.contains { name.hasPrefix($0) } }
        guard !unknown.isEmpty else { return nil }
        let shown = unknown.prefix(3).map(Self.quoted)
        let listed = unknown.count > 3 ? shown.joined(separator: ", ") + " or \(unknown.count - 3) more" : Self.joined(shown, "or")
        let it = unknown.count == 1 ? "it is" : "they are"
        return "This list knows nothing of \(listed), so \(it) ignored. It reads \(Self.joined(known, "and"))."
    }

    /// "a, b and c".
    private static func joined(_ items: [String], _ conjunction: String) -> String {
        guard let last = items.last, items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }

    /// The sentence a list shows when the address gave `name` a value `isKnown` refuses: the
    /// filter is ignored, and says so, instead of quietly showing something else
    /// ("“bogus” is not a status, so waiting libraries are shown.").
    func ignored(_ name: String, isNot what: String, so instead: String, isKnown: (String) -> Bool) -> String? {
        guard let value = parameters[name], !value.trimmingCharacters(in: .whitespaces).isEmpty, !isKnown(value) else { return nil }
        return "\(Self.quoted(value)) is not \(what), so \(instead)."
    }

    /// A value from the address repeated in a sentence: quoted, at most 40 characters, and
    /// isolated as every typed text the console repeats, so right-to-left text stays inside its quotes.
    private static func quoted(_ value: String) -> String {
        "“\(TypedText.isolated(value.count > 40 ? String(value.prefix(39)) + "…" : value))”"
    }
}
