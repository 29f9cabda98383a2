import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// One library in a queue. Rows are the hot path of every queue page, so they answer
/// template lookups directly (`MustacheParent`) instead of through reflection.
struct LibraryRow: MustacheParent {
    let slug: String
    let name: String
    let isUnnamed: Bool
    let thumbnailURL: String
    let place: String
    let submitter: String
    let age: String
    let createdAt: String
    let createdUTC: String
    let status: String
    /// `slug|status seen|name`: what a bulk selection posts for this row.
    let selection: String
    /// The library's page, opened from this list (its filters and order ride along).
    var libraryURL: String
    let decideURL: String
    /// What became of the viewer's decision on it, when just made.
    private(set) var outcome = RowOutcome.none
    /// Why it needs a look, strong reasons first (`LibraryConcerns`).
    let concerns: [LibraryConcern]
    /// A strong reason: the row sends the moderator to the library's page instead of approving in one click.
    let firstStrongConcern: LibraryConcern?
    /// Who is reviewing it, or the "I'm reviewing this" button.
    var claim = ClaimBadge.hidden
    /// A pending library past or near the queue's target (On call: alerts).
    let mark: QueueStandingMark
    /// Waiting for a decision: the row offers Approve and Reject…; a decided row offers Review… only.
    let isWaiting: Bool
    /// A decision recorded but not yet sent (by anyone): shown instead of the decision controls.
    private(set) var queued = QueuedDecisionNote.none
    /// Who decided a decided row, when and why.
    var decidedNote = DecidedNote.none
    /// Ticked for the bulk form when the list is shown again with what the moderator had ticked.
    var isSelected = false

    init(_ library: MirrorLibrary, concerns: [LibraryConcern], targets: QueueTargets, now: Date) {
        slug = library.slug
        libraryURL = SiteURL.library(library.slug).path
        decideURL = SiteURL.libraryDecide(library.slug).path
        isUnnamed = LibraryText.isBlank(library.name)
        name = LibraryText.displayName(library.name)
        thumbnailURL = library.thumbnailUrl
        place = LibraryText.place(address: library.address, city: library.city, country: library.country)
        submitter = library.submitterUsername ?? "imported"
        age = TimeText.age(of: library.createdAt, now: now)
        createdAt = TimeText.iso(library.createdAt)
        createdUTC = TimeText.utc(library.createdAt)
        status = library.status.rawValue
        // Foundation's replacing (and its `contains` of a string) costs more than the rest of the
        // row's text: only a name with a bar needs it.
        let selectedName = library.name.utf8.contains(UInt8(ascii: "|")) ? library.name.replacingOccurrences(of: "|", with: " ") : library.name
        selection = "\(library.slug)|\(library.status.rawValue)|\(selectedName)"
        // Only a waiting library gets Approve in one click: reversing a decision is confirmed on its page.
        isWaiting = library.status == .pending
        // A decided library's reasons were for its decision: the row no longer raises them.
        self.concerns = library.status == .pending ? concerns : []
        firstStrongConcern = self.concerns.first { $0.strength == .strong }
        mark = library.status == .pending ? QueueStandingMark(.libraries, createdAt: library.createdAt, targets: targets, now: now) : .none
    }

    /// The row of an item with a decision on its way: the note instead of the decision controls.
    mutating func queuedDecision(_ note: QueuedDecisionNote) {
        queued = note
        claim = .hidden
    }

    /// The row of an item the viewer just decided: its outcome instead of the decision controls.
    mutating func decided(_ outcome: RowOutcome) {
        self.outcome = outcome
        claim = .hidden
    }

    /// Neither decided a moment ago nor with a decision on its way: the row offers its controls.
    private var showsControls: Bool { !outcome.isShown && !queued.isShown }

    // Each name a template asks for costs a lookup and several dynamic casts, on every row of
    // every queue page: conditions the template would nest are answered here in one name.
    func child(named key: String) -> Any? {
        switch key {
        case "showsControls": showsControls
        case "isSelectable": showsControls && isWaiting
        case "isMarked": mark.isMarked
        case "concerns": concerns
        case "needsALook": firstStrongConcern != nil
        // A likely duplicate opens at the comparison; any other strong reason at the reasons.
        case "lookURL": libraryURL + (firstStrongConcern?.kind == .duplicate ? "#compare" : "#concerns")
        case "lookLabel": firstStrongConcern?.kind == .duplicate ? "Compare…" : "Look first…"
        case "lookTitle": firstStrongConcern.map { "\($0.sentence) Its page shows why, before approving." } ?? ""
        case "outcome": outcome
        case "isDecided": outcome.isShown
        case "claim": claim
        case "slug": slug
        case "name": name
        case "isUnnamed": isUnnamed
        case "hasThumbnail": !thumbnailURL.isEmpty
        case "thumbnailURL": thumbnailURL
        case "place": place
        case "submitter": submitter
        case "age": age
        case "createdAt": createdAt
        case "createdUTC": createdUTC
        case "status": status
        case "selection": selection
        case "libraryURL": libraryURL
        case "decideURL": decideURL
        case "mark": mark
        case "isWaiting": isWaiting
        case "queued": queued
        case "isQueued": queued.isShown
        case "decidedNote": decidedNote
        case "isSelected": isSelected
        default: nil
        }
    }
}
