import ModerationStore
import Mustache

/// One reason a waiting library needs a look: a short badge for its row, a sentence with the
/// evidence for its page, and how strong it is. A strong reason takes one-click Approve away.
struct LibraryConcern: MustacheParent, Hashable {
    /// What kind of reason it is (what the queue can be filtered by).
    enum Kind: String, CaseIterable {
        case duplicate, newSubmitter, oftenRejected, burst, markup, contactDetails, suspectWords, allCapitals, nameIsAddress, place, noPhoto

        /// What the queue's filter calls it.
        var label: String {
            switch self {
            case .duplicate: "Duplicate nearby"
            case .newSubmitter: "New submitter"
            case .oftenRejected: "Often rejected"
            case .burst: "Many in an hour"
            case .markup: "Links or markup"
            case .contactDetails: "Contact details in the text"
            case .suspectWords: "Suspect words"
            case .allCapitals: "All capitals"
            case .nameIsAddress: "Name is the address"
            case .place: "Odd place"
            case .noPhoto: "No photo"
            }
        }
    }

    enum Strength: String, Comparable {
        case strong
        case worthALook = "worth-a-look"

        static func < (lhs: Strength, rhs: Strength) -> Bool { lhs == .strong && rhs != .strong }
    }

    let kind: Kind
    let strength: Strength
    /// The one name a library close by goes by, on every page: "likely duplicate" when it is a
    /// strong reason, "possible duplicate" when it is worth a look.
    static func duplicateName(_ strength: Strength) -> String { strength == .strong ? "likely duplicate" : "possible duplicate" }

    /// A few words for the row: "likely duplicate, 12 m".
    let badge: String
    /// The reason with its evidence, for the library's page and the badge's title.
    let sentence: String

    init(kind: Kind, strength: Strength, badge: String, sentence: String) {
        self.kind = kind
        self.strength = strength
        self.badge = badge
        self.sentence = sentence
    }

    /// A reason as the refresher stored it; nil for a kind or strength this build does not know
    /// (stored by a newer console on the same file).
    init?(stored: StoredLibraryConcern) {
        guard let kind = Kind(rawValue: stored.kind), let strength = Strength(rawValue: stored.strength) else { return nil }
        self.init(kind: kind, strength: strength, badge: stored.badge, sentence: stored.sentence)
    }

    /// The reason as stored for the queue's filter and rows.
    var stored: StoredLibraryConcern {
        StoredLibraryConcern(kind: kind.rawValue, strength: strength.rawValue, badge: badge, sentence: sentence)
    }

    func child(named key: String) -> Any? {
        switch key {
        case "kind": kind.rawValue
        case "strength": strength.rawValue
        case "isStrong": strength == .strong
        case "strengthLabel":
            switch (kind, strength) {
            case (.duplicate, .strong): "Likely duplicate"
            case (.duplicate, .worthALook): "Possible duplicate"
            case (_, .strong): "Strong"
            case (_, .worthALook): "Worth a look"
            }
        case "badge": badge
        case "sentence": sentence
        default: nil
        }
    }
}
