/// The On call area's sub-navigation: Schedule, Alerts & targets, Hand-offs.
struct OnCallSubnav {
    struct Link {
        let label: String
        let href: String
        let current: Bool
    }

    enum Page {
        case schedule, alerts, handoffs
    }

    let links: [Link]

    init(current: Page) {
        links = [
            // The Schedule and Alerts pages are built on other branches at the same time; their
            // SiteURL cases (`onCall`, `onCallAlerts`) replace these two paths when they merge.
            Link(label: "Schedule", href: "/on-call", current: current == .schedule),
            Link(label: "Alerts & targets", href: "/on-call/alerts", current: current == .alerts),
            Link(label: "Hand-offs", href: SiteURL.onCallHandoffs.path, current: current == .handoffs),
        ]
    }
}
