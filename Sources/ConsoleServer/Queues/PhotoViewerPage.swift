import Mustache

/// One proposed photo and the library's current one, large, on the console's own page: side
/// by side, or one over the other with a slider between (swipe). Its decisions are the card's,
/// and return to the photo list at the card, which then shows the outcome in place.
struct PhotoViewerPage: MustacheParent {
    enum View: String {
        case sideBySide = "side-by-side"
        case swipe
    }

    let layout: LayoutModel
    let card: PhotoCard
    let view: View
    /// Where the card's forms return, and the way back: the list at this card.
    let back: String

    init(layout: LayoutModel, card: PhotoCard, view: View) {
        self.layout = layout
        self.card = card
        // Swiping needs something to swipe to.
        self.view = card.hasCurrentPhoto ? view : .sideBySide
        back = SiteURL.photos.path + "#photo-\(card.id)"
    }

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "card": card
        case "back": back
        case "isSideBySide": view == .sideBySide
        case "isSwipe": view == .swipe
        case "canSwipe": card.hasCurrentPhoto
        case "sideBySideURL": SiteURL.photo(card.id).path
        case "swipeURL": SiteURL.photo(card.id).path(query: [(name: "view", value: View.swipe.rawValue)])
        default: nil
        }
    }
}
