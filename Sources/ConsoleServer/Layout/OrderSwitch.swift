import ModerationVocabulary
import Mustache

/// The "Order: Oldest first · Newest first · Needs a look first" switch above a queue: each order a link to the
/// same list in it, and the order the address named, which the filter form keeps.
struct OrderSwitch: MustacheParent {
    let options: [FilterOption]
    /// The order the address named; "" when it named the list's usual one.
    let chosen: String

    /// `link` answers the list in the given order; `standard` is the list's usual order; `choices` what it offers.
    init(order: QueueOrder, standard: QueueOrder, choices: [QueueOrder] = QueueOrder.byTime, link: (QueueOrder) -> String) {
        options = choices.map { FilterOption(value: link($0), label: $0.label, selected: $0 == order) }
        chosen = order == standard ? "" : order.rawValue
    }

    /// The switch of a list at `url` with `filters`, whose `order` item names the order when it is not the usual one.
    init(order: QueueOrder, standard: QueueOrder, url: SiteURL, filters: [(String, String?)]) {
        self.init(order: order, standard: standard) { other in
            url.path(query: filters.map { (name: $0.0, value: $0.0 == "order" ? (other == standard ? nil : other.rawValue) : $0.1) })
        }
    }

    /// A list without the switch (a page model made before its list is known).
    static let none = OrderSwitch()

    private init() {
        options = []
        chosen = ""
    }

    func child(named key: String) -> Any? {
        switch key {
        case "options": options
        case "chosen": chosen
        case "hasChosen": !chosen.isEmpty
        case "isShown": !options.isEmpty
        default: nil
        }
    }
}
