import Foundation

/// The thresholds of the reasons a library needs a look, and the suspect words: staff tune them
/// on the reasons page (each change audited); until then the defaults hold.
public struct ConcernSettings: Sendable, Equatable {
    /// Another library within this many metres is most likely the same one (strong).
    public var strongDuplicateMetres: Int
    /// Within this many metres it is worth comparing.
    public var duplicateMetres: Int
    /// One with the same name within this many metres is worth comparing.
    public var sameNameMetres: Int
    /// More than this many submissions by one person within an hour is a burst.
    public var burstSubmissions: Int
    /// From this many rejections (and at least half of the decided) "often rejected" is strong.
    public var strongRejections: Int
    /// Words or phrases that make a library worth a look when its name or description has them,
    /// matched folded (case and accents aside) and as whole words.
    public var suspectWords: [String]

    public init(
        strongDuplicateMetres: Int = 25, duplicateMetres: Int = 50, sameNameMetres: Int = 200, burstSubmissions: Int = 5,
        strongRejections: Int = 3, suspectWords: [String] = []
    ) {
        self.strongDuplicateMetres = strongDuplicateMetres
        self.duplicateMetres = duplicateMetres
        self.sameNameMetres = sameNameMetres
        self.burstSubmissions = burstSubmissions
        self.strongRejections = strongRejections
        self.suspectWords = suspectWords
    }

    public static let defaults = ConcernSettings()

    /// Whether an approved or pending library `metres` away is a duplicate strong enough to
    /// take one-click Approve away.
    public func isStrongDuplicate(metres: Double) -> Bool { metres <= Double(strongDuplicateMetres) }

    /// Whether a library `metres` away is close enough to be worth a look whatever its name.
    public func isNearDuplicate(metres: Double) -> Bool { metres <= Double(duplicateMetres) }

    /// Whether a library of the same name `metres` away is worth a look.
    public func isNearNamesake(metres: Double) -> Bool { metres <= Double(sameNameMetres) }

    /// How far around a library neighbours must be read for these thresholds.
    public var neighbourhoodMetres: Double { Double(max(duplicateMetres, sameNameMetres)) }

    /// The ranges staff may choose from; the page says them.
    public static let distanceRange = 1...500
    public static let countRange = 1...100
    /// At most this many suspect words, each at most `wordLength` characters.
    public static let maxWords = 200
    public static let wordLength = 60

    /// Each setting as stored: its key, and its value as text.
    func stored() -> [String: String] {
        [
            "strongDuplicateMetres": String(strongDuplicateMetres), "duplicateMetres": String(duplicateMetres),
            "sameNameMetres": String(sameNameMetres), "burstSubmissions": String(burstSubmissions),
            "strongRejections": String(strongRejections), "suspectWords": suspectWords.joined(separator: "\n"),
        ]
    }

    /// The settings from stored keys and values; a key not stored, or stored unreadable, keeps its default.
    init(stored: [String: String]) {
        let defaults = Self.defaults
        func number(_ key: String, _ fallback: Int) -> Int { stored[key].flatMap { Int($0) } ?? fallback }
        self.init(
            strongDuplicateMetres: number("strongDuplicateMetres", defaults.strongDuplicateMetres),
            duplicateMetres: number("duplicateMetres", defaults.duplicateMetres),
            sameNameMetres: number("sameNameMetres", defaults.sameNameMetres),
            burstSubmissions: number("burstSubmissions", defaults.burstSubmissions),
            strongRejections: number("strongRejections", defaults.strongRejections),
            suspectWords: stored["suspectWords"].map { $0.split(separator: "\n").map(String.init) } ?? defaults.suspectWords)
    }

    /// Every setting as text, in a fixed order: what stored reasons were worked out with.
    public var fingerprintFields: [String] {
        stored().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// One line per change from `old` ("Duplicate, strong: 25 m → 30 m"), for the audit log.
    public func changes(from old: ConcernSettings) -> [String] {
        var lines: [String] = []
        func note(_ label: String, _ before: Int, _ after: Int, _ unit: String) {
            if before != after { lines.append("\(label): \(before)\(unit) → \(after)\(unit)") }
        }
        note("Duplicate, strong within", old.strongDuplicateMetres, strongDuplicateMetres, " m")
        note("Duplicate, worth a look within", old.duplicateMetres, duplicateMetres, " m")
        note("Same name within", old.sameNameMetres, sameNameMetres, " m")
        note("Many in an hour (more than)", old.burstSubmissions, burstSubmissions, "")
        note("Often rejected, strong from", old.strongRejections, strongRejections, " rejections")
        let added = suspectWords.filter { !old.suspectWords.contains($0) }
        let removed = old.suspectWords.filter { !suspectWords.contains($0) }
        if !added.isEmpty { lines.append("Suspect words added: " + added.joined(separator: ", ")) }
        if !removed.isEmpty { lines.append("Suspect words removed: " + removed.joined(separator: ", ")) }
        return lines
    }
}
