import BookCornersAPI
import Foundation
import Hummingbird
import ModerationStore
import Mustache

/// The statistics over a chosen period: the community's growth, the moderation's pace, what waits now.
struct StatisticsPage: MustacheParent {
    let layout: LayoutModel
    let periods: [PeriodOption]
    let community: [Chart]
    let hasCommunity: Bool
    let moderation: [Chart]
    let waitingNow: [Chart]
    let hasWaiting: Bool
    let days: Int

    func child(named key: String) -> Any? {
        switch key {
        case "layout": layout
        case "periods": periods
        case "community": community
        case "hasCommunity": hasCommunity
        case "moderation": moderation
        case "waitingNow": waitingNow
        case "hasWaiting": hasWaiting
        case "days": days
        default: nil
        }
    }
}
