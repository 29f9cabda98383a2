import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// One choice of the statistics' period, as a link.
struct PeriodOption: MustacheParent {
    let days: Int
    let href: String
    let current: Bool

    func child(named key: String) -> Any? {
        switch key {
        case "days": days
        case "href": href
        case "current": current
        default: nil
        }
    }
}
