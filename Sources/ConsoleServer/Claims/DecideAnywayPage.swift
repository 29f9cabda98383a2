/// "bob is reviewing this — decide anyway?": shown before recording a decision on an item
/// someone else has claimed. Its form posts the same fields again, with `anyway=1`.
struct DecideAnywayPage {
    let layout: LayoutModel
    let holder: String
    let timeLeft: String
    /// "library corner-books", "report 42".
    let item: String
    let decideURL: String
    let fields: [HiddenField]
    let cancelURL: String
}
