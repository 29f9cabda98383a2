/// "bob is reviewing this, 8 min left — take it over?": asked before a take-over is recorded.
struct TakeOverPage {
    let layout: LayoutModel
    let holder: String
    let timeLeft: String
    /// "library corner-books", "report 42".
    let item: String
    let claimID: String
    let takeOverURL: String
    let back: String
}
