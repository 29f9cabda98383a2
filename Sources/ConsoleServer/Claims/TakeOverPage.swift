import Mustache

/// "bob is reviewing this, 8 min left — take it over?": asked before a take-over is recorded.
struct TakeOverPage: MustacheParent {
    let layout: LayoutModel
    let holder: String
    let timeLeft: String
    /// "library corner-books", "report 42".
    let item: String
    let claimID: String
    let takeOverURL: String
    let back: String

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "holder": holder
        case "timeLeft": timeLeft
        case "item": item
        case "claimID": claimID
        case "takeOverURL": takeOverURL
        case "back": back
        default: nil
        }
    }
}
