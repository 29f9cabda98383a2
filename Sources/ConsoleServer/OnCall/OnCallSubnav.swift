import Mustache

/// The On call area's three pages, linked at the top of each.
struct OnCallSubnav: MustacheParent {
    let label: String
    let href: String
    let current: Bool

    enum Page { case schedule, alerts, handoffs }

    static func links(current: Page) -> [OnCallSubnav] {
        [
            OnCallSubnav(label: "Schedule", href: SiteURL.onCall.path, current: current == .schedule),
            OnCallSubnav(label: "Alerts & targets", href: SiteURL.onCallAlerts.path, current: current == .alerts),
            OnCallSubnav(label: "Hand-offs", href: SiteURL.onCallHandoffs.path, current: current == .handoffs),
        ]
    }

    func child(named key: String) -> Any? {
        switch key {
        case "label": label
        case "href": href
        case "current": current
        default: nil
        }
    }
}
