import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// One library in a queue. Rows are the hot path of every queue page, so they answer
/// template lookups directly (`MustacheParent`) instead of through reflection. A row equal to
/// one written before is not written again (`KeyedFragment`): so what only the markup needs
/// (addresses, times as text, the bulk selection) is worked out when asked for, not per view.
struct LibraryRow: KeyedFragment {
    let slug: String
    let name: String
    let isUnnamed: Bool
    let thumbnailURL: String
    private let address: String
    private let city: String
    private let country: String
    let submitter: String
    let age: String
    private let created: Date
    let status: String
    /// The name as Book Corners has it: what the bulk selection carries.
    private let storedName: String
    /// The library's page, opened from this list (its filters and order ride along).
    var libraryURL: String
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

    /// `libraryURL`: the library's page as this list opens it (its own page's address when nil).
    init(_ library: MirrorLibrary, concerns: [LibraryConcern], targets: QueueTargets, now: Date, libraryURL: String? = nil) {
        slug = library.slug
        self.libraryURL = libraryURL ?? SiteURL.library(library.slug).path
        isUnnamed = LibraryText.isBlank(library.name)
        name = LibraryText.displayName(library.name)
        storedName = library.name
        thumbnailURL = library.thumbnailUrl
        address = library.address
        city = library.city
        country = library.country
        submitter = library.submitterUsername ?? "imported"
        age = TimeText.age(of: library.createdAt, now: now)
        created = library.createdAt
        status = library.status.rawValue
        // Only a waiting library gets Approve in one click: reversing a decision is confirmed on its page.
        isWaiting = library.status == .pending
        // A decided library's reasons were for its decision: the row no longer raises them.
        self.concerns = library.status == .pending ? concerns : []
        firstStrongConcern = self.concerns.first { $0.strength == .strong }
        mark = library.status == .pending ? QueueStandingMark(.libraries, createdAt: library.createdAt, targets: targets, now: now) : .none
    }

    var place: String { LibraryText.place(address: address, city: city, country: country) }
    var createdAt: String { TimeText.iso(created) }
    var createdUTC: String { TimeText.utc(created) }
    var decideURL: String { SiteURL.libraryDecide(slug).path }

    /// `slug|status seen|name`: what a bulk selection posts for this row.
    var selection: String {
        // Foundation's replacing (and its `contains` of a string) costs more than the rest of the
        // row's text: only a name with a bar needs it.
        let selectedName = storedName.utf8.contains(UInt8(ascii: "|")) ? storedName.replacingOccurrences(of: "|", with: " ") : storedName
        return "\(slug)|\(status)|\(selectedName)"
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
