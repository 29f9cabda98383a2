import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The photo queue: proposed photos beside the ones they would replace.
struct PhotoGridPage: MustacheParent {
    let layout: LayoutModel
    let statusOptions: [FilterOption]
    let cards: [PhotoCard]
    let loaded: Bool
    let pager: Pager?
    let isEmpty: Bool
    /// Where decisions and claims return: this list as it was asked for.
    var back: String
    var orderSwitch = OrderSwitch.none
    let filterURL = SiteURL.photos.path

    init(layout: LayoutModel, statusOptions: [FilterOption], cards: [PhotoCard], loaded: Bool, pager: Pager?) {
        self.layout = layout
        self.statusOptions = statusOptions

        self.cards = cards
        self.loaded = loaded
        self.pager = pager
        isEmpty = loaded && cards.isEmpty
        back = SiteURL.photos.path
    }

    /// The page size the list was asked for, when not the standard one: filtering keeps it.
    var pageSize = ""

    func child(named key: String) -> Any? {
        switch key {
        case "pageSize": pageSize
        case "hasPageSize": !pageSize.isEmpty
        case "layout": layout
        case "statusOptions": statusOptions
        case "cards": cards
        case "loaded": loaded
        case "pager": pager
        case "isEmpty": isEmpty
        case "back": back
        case "orderSwitch": orderSwitch
        case "filterURL": filterURL
        default: nil
        }
    }
}
