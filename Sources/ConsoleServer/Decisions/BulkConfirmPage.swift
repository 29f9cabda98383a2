import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// The confirmation page of a bulk decision.
struct BulkConfirmPage: MustacheParent {
    struct Item: MustacheParent {
        let slug: String
        let seen: String
        let name: String
        let libraryURL: String
        /// Where it is ("Rue Mouffetard 69, Paris, FR") and its thumbnail, from the mirror: two
        /// libraries of one name are told apart; "" when the mirror does not know it.
        private(set) var place = ""
        private(set) var thumbnailURL = ""
        /// Whether someone submitted it (and reads a rejection's reason); nil when the mirror does not know it.
        private(set) var hasSubmitter: Bool?
        /// Why it needs a look (`LibraryConcerns`), strong reasons first.
        let concerns: [LibraryConcern]
        /// "maria is reviewing · 8 min left" when someone else holds a claim on it; "" otherwise.
        let claimNote: String
        let isClaimed: Bool

        init(slug: String, seen: String, name: String, concerns: [LibraryConcern], claimNote: String = "") {
            self.slug = slug
            self.seen = seen
            self.name = name
            self.concerns = concerns
            self.claimNote = claimNote
            isClaimed = !claimNote.isEmpty
            libraryURL = SiteURL.library(slug).path
        }

        /// Takes the place and thumbnail of the library as the mirror has it.
        mutating func shows(_ library: MirrorLibrary) {
            place = LibraryText.place(address: library.address, city: library.city, country: library.country)
            thumbnailURL = library.thumbnailUrl.isEmpty ? library.photoUrl : library.thumbnailUrl
            hasSubmitter = library.submitterUsername != nil
        }

        func child(named key: String) -> Any? {
            switch key {
            case "slug": slug
            case "seen": seen
            case "name": name
            case "place": place
            case "hasPlace": !place.isEmpty
            case "thumbnailURL": thumbnailURL
            case "hasThumbnail": !thumbnailURL.isEmpty
            case "libraryURL": libraryURL
            case "concerns": concerns
            case "claimNote": claimNote
            case "isClaimed": isClaimed
            default: nil
            }
        }
    }

    let layout: LayoutModel
    let decision: String
    let verb: String
    let count: Int
    let items: [Item]
    /// Stored, not computed: Mustache reads stored properties only.
    let heading: String
    let reason: String
    let isReject: Bool
    /// Who reads the reason: "Each submitter will read this reason", less those imported without one.
    let reasonReaders: String
    let key: String
    /// "2 of these are being reviewed by someone else …"; "" when none is.
    private(set) var claimedNotice: String
    let hasClaimed: Bool
    let confirmURL = SiteURL.librariesBulkConfirm.path
    /// Libraries chosen but not approved in bulk: a strong reason to look first (`BulkSelectionCheck`).
    private(set) var leftOut: [BulkSelectionCheck.LeftOut] = []
    /// "Reject 3 libraries", "Approve 1 library": the confirming button.
    let buttonLabel: String
    /// The list the selection was made on (filters, order, page): Cancel and the decision return there.
    let back: String
    /// "10 changes per 5 minutes": what Book Corners takes from the console, as configured.
    let writeRate: String

    init(
        layout: LayoutModel, decision: String, verb: String, count: Int, items: [Item], heading: String, reason: String, isReject: Bool,
        key: String, back: String = SiteURL.libraries.path, draft: BulkDraft = BulkDraft(), writeRate: String = BackendLimits().writeRate
    ) {
        self.writeRate = writeRate
        cancelURL = draft.url(returningTo: back)
        buttonLabel = "\(verb) \(CountText.libraries(count))"
        self.back = back
        self.layout = layout
        self.decision = decision
        self.verb = verb
        self.count = count
        self.items = items
        self.heading = heading
        self.reason = reason
        self.isReject = isReject
        self.key = key
        reasonReaders = Self.reasonReaders(items)
        let claimed = items.filter(\.isClaimed).count
        hasClaimed = claimed > 0
        claimedNotice =
            claimed == 0
            ? ""
            : claimed == 1
                ? "1 of these libraries is being reviewed by someone else (marked below). Confirming decides it anyway and ends their claim."
                : "\(claimed) of these libraries are being reviewed by someone else (marked below). Confirming decides them anyway and ends their claims."
        // One library is "this library", not "1 of these libraries".
        if claimed == 1, count == 1 {
            claimedNotice = "Someone else is reviewing this library (marked below). Confirming decides it anyway and ends their claim."
        }
    }

    /// Names the libraries left out of a bulk approval, and why, above the list.
    mutating func leaves(out libraries: [BulkSelectionCheck.LeftOut]) {
        leftOut = libraries
    }

    /// Who is told the reason, as far as the mirror knows who submitted each library.
    static func reasonReaders(_ items: [Item]) -> String {
        let withSubmitter = items.filter { $0.hasSubmitter == true }.count
        let imported = items.filter { $0.hasSubmitter == false }.count
        switch (items.count, withSubmitter, imported) {
        case (1, 1, _): return "Its submitter will read this reason:"
        case (1, _, 1): return "It was imported and has no submitter, so nobody is told; the reason is kept with the library:"
        case (_, _, 0): return "Each submitter will read this reason:"
        case (_, 0, _) where imported == items.count:
            return "They were all imported and have no submitter, so nobody is told; the reason is kept with each library:"
        default:
            return
                "Each submitter will read this reason (\(imported) of them \(imported == 1 ? "was" : "were") imported and \(imported == 1 ? "has" : "have") none, so nobody is told for \(imported == 1 ? "it" : "those")):"
        }
    }

    /// "Approve 1 library?", "Reject 3 libraries?".
    static func heading(verb: String, count: Int) -> String {
        "\(verb) \(CountText.libraries(count))?"
    }
    /// The list again with the same rows ticked and the same decision and reason: Cancel loses nothing.
    let cancelURL: String

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "buttonLabel": buttonLabel
        case "back": back
        case "writeRate": writeRate
        case "decision": decision
        case "verb": verb
        case "count": count
        case "items": items
        case "heading": heading
        case "reason": reason
        case "isReject": isReject
        case "reasonReaders": reasonReaders
        case "key": self.key
        case "claimedNotice": claimedNotice
        case "hasClaimed": hasClaimed
        case "confirmURL": confirmURL
        case "cancelURL": cancelURL
        case "leftOut": leftOut
        case "hasLeftOut": !leftOut.isEmpty
        case "leftOutHeading":
            leftOut.count == 1
                ? "Not approved here: 1 library has a strong reason to look first"
                : "Not approved here: \(leftOut.count) libraries have a strong reason to look first"
        default: nil
        }
    }
}
