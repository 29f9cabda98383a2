import Mustache

/// One reason a waiting library needs a look: a short badge for its row, a sentence with the
/// evidence for its page, and how strong it is. A strong reason takes one-click Approve away.
struct LibraryConcern: MustacheParent, Equatable {
    /// What kind of reason it is (what the queue can be filtered by).
    enum Kind: String, CaseIterable {
        case duplicate, newSubmitter, oftenRejected, burst, markup, contactDetails, allCapitals, nameIsAddress, place, noPhoto
    }

    enum Strength: String, Comparable {
        case strong
        case worthALook = "worth-a-look"

        static func < (lhs: Strength, rhs: Strength) -> Bool { lhs == .strong && rhs != .strong }
    }

    let kind: Kind
    let strength: Strength
    /// A few words for the row: "duplicate? 12 m".
    let badge: String
    /// The reason with its evidence, for the library's page and the badge's title.
    let sentence: String

    func child(named key: String) -> Any? {
        switch key {
        case "kind": kind.rawValue
        case "strength": strength.rawValue
        case "isStrong": strength == .strong
        case "badge": badge
        case "sentence": sentence
        default: nil
        }
    }
}
