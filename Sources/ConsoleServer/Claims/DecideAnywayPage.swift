import Mustache

/// "bob is reviewing this — approve it anyway?": shown before recording a decision on an item
/// someone else has claimed. Its form posts the same fields again, with `anyway=1`.
struct DecideAnywayPage: MustacheParent {
    let layout: LayoutModel
    let holder: String
    /// The decision waiting to be made, as its button says it: "Approve", "Reject".
    let verb: String
    let timeLeft: String
    /// "library corner-books", "report 42".
    let item: String
    let decideURL: String
    let fields: [HiddenField]
    let cancelURL: String

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "holder": holder
        case "verb": verb
        case "verbLowercased": verb.lowercased()
        case "timeLeft": timeLeft
        case "item": item
        case "decideURL": decideURL
        case "fields": fields
        case "cancelURL": cancelURL
        default: nil
        }
    }
}
