import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The confirmation before a decision that reverses an earlier one, naming it.
struct ReverseConfirmPage: MustacheParent {
    let layout: LayoutModel
    /// "Approve a rejected library?"
    let heading: String
    /// The library, named with its city.
    let name: String
    /// "Rejected by maria on … (3 d ago), with the reason: “…”."
    let earlier: String
    /// What confirming does, in words.
    let consequence: String
    let verb: String
    let decideURL: String
    /// The form as it came, posted again with `confirmed=1`.
    let fields: [HiddenField]
    let cancelURL: String

    init(
        layout: LayoutModel, name: String, seen: ItemStatus, wanted: ItemStatus, earlier: DecidedNote, decideURL: String, fields: [HiddenField],
        cancelURL: String
    ) {
        self.layout = layout
        self.name = name
        self.earlier = earlier.sentence
        self.decideURL = decideURL
        self.fields = fields.filter { $0.name != "confirmed" }
        self.cancelURL = cancelURL
        // "an approved library", "a rejected library": the article follows the word's sound.
        let seenWithArticle = (seen.rawValue.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + seen.rawValue
        switch wanted {
        case .approved:
            heading = "Approve a library that was \(seen.rawValue)?"
            verb = "Approve"
            consequence = "Approving reverses that decision: the library appears on the map."
        case .pending:
            heading = "Return \(seenWithArticle) library to pending?"
            verb = "Return to pending"
            consequence =
                seen == .approved
                ? "Returning it to pending reverses that decision: the library leaves the map and waits in the queue again."
                : "Returning it to pending reverses that decision: the library waits in the queue again."
        default:
            heading = "Change \(seenWithArticle) library to \(wanted.rawValue)?"
            verb = "Change"
            consequence = "This reverses that decision."
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "heading": heading
        case "name": name
        case "earlier": earlier
        case "consequence": consequence
        case "verb": verb
        case "decideURL": decideURL
        case "fields": fields
        case "cancelURL": cancelURL
        default: nil
        }
    }
}
