import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// The confirmation page of a single rejection.
struct RejectConfirmPage: MustacheParent {
    let layout: LayoutModel
    let slug: String
    let seen: String
    let key: String
    let reason: String
    let back: String
    let decideURL: String
    let cancelURL: String
    /// The list the library's page was opened from, sent on so the next one opens; "" for none.
    let queue: String
    let hasQueue: Bool
    /// The library being rejected, by name and place; its slug until the mirror names it.
    private(set) var name: String
    private(set) var place = ""
    private(set) var isUnnamed = false
    /// What happens, in words that hold for this library: who is told, or that nobody is.
    private(set) var consequence = "The library will not appear on the map, and its submitter will be told, with this reason:"
    /// The decision this rejection reverses, when the library is not waiting.
    private(set) var earlier = DecidedNote.none

    /// Says what the rejection does for `library` as the mirror has it (nil: not known yet).
    mutating func describe(_ library: MirrorLibrary?, earlier: DecidedNote?) {
        self.earlier = earlier ?? .none
        guard let library else { return }
        let map = library.status == .approved ? "The library will be taken off the map" : "The library will not appear on the map"
        if let submitter = library.submitterUsername {
            consequence = "\(map), and its submitter, \(submitter), will be told, with this reason:"
        } else {
            consequence = "\(map). It was imported and has no submitter, so nobody is told; the reason is kept with the library and in the audit log:"
        }
    }

    init(layout: LayoutModel, slug: String, seen: String, key: String, reason: String, back: String, queue: LibraryQueueContext? = nil) {
        self.layout = layout
        self.slug = slug
        self.seen = seen
        self.key = key
        self.reason = reason
        self.back = back
        decideURL = SiteURL.libraryDecide(slug).path
        cancelURL = queue?.detailPath(slug: slug) ?? SiteURL.library(slug).path
        self.queue = queue?.formValue ?? ""
        hasQueue = queue != nil
        name = slug
    }

    /// Names the library as the mirror has it.
    mutating func names(_ library: MirrorLibrary) {
        name = LibraryText.displayName(library.name)
        isUnnamed = LibraryText.isBlank(library.name)
        place = LibraryText.place(address: library.address, city: library.city, country: library.country)
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "slug": slug
        case "seen": seen
        case "key": self.key
        case "reason": reason
        case "back": back
        case "decideURL": decideURL
        case "cancelURL": cancelURL
        case "queue": queue
        case "hasQueue": hasQueue
        case "name": name
        case "place": place
        case "hasPlace": !place.isEmpty
        case "isUnnamed": isUnnamed
        case "consequence": consequence
        case "earlier": earlier
        default: nil
        }
    }
}
