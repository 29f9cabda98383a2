import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import ModerationVocabulary
import Mustache

/// The photo queue: proposed photos beside the ones they would replace.
struct PhotoGridPage: MustacheParent {
    var frame: QueueListFrame
    let cards: [PhotoCard]

    init(layout: LayoutModel, statusOptions: [FilterOption], cards: [PhotoCard], loaded: Bool, pager: Pager?) {
        frame = QueueListFrame(layout: layout, statusOptions: statusOptions, loaded: loaded, pager: pager, itemCount: cards.count, list: .photos)
        self.cards = cards
    }

    func child(named key: String) -> Any? {
        switch key {
        case "cards": cards
        default: frame.child(named: key)
        }
    }
}
