import Mustache

/// The dashboard's one clear next step: the item waiting longest in the first queue that has
/// any, opened in its list so that each decision leads on to the next; or that nothing waits.
struct NextStep: MustacheParent, Sendable {
    let isShown: Bool
    let hasLink: Bool
    let href: String
    let text: String

    static let none = NextStep(isShown: false, hasLink: false, href: "", text: "")

    private init(isShown: Bool, hasLink: Bool, href: String, text: String) {
        self.isShown = isShown
        self.hasLink = hasLink
        self.href = href
        self.text = text
    }

    /// From the dashboard's queues, libraries first (the map waits on them), then reports, then photos.
    init(queues: [DashboardPage.Queue]) {
        if let queue = queues.first(where: { !$0.items.isEmpty }), let item = queue.items.first {
            let what =
                switch item.target.kind {
                case .library: "The library waiting longest"
                case .report: "The report open longest"
                case .photo: "The photo waiting longest"
                }
            let detail = item.detail.isEmpty ? "" : " (\(item.detail))"
            self.init(isShown: true, hasLink: true, href: Self.start(item), text: "\(what): “\(item.label)”\(detail), sent \(item.age).")
        } else if !queues.isEmpty, queues.allSatisfy(\.nothingWaiting) {
            self.init(isShown: true, hasLink: false, href: "", text: "Nothing is waiting: every queue is clear.")
        } else {
            self = .none
        }
    }

    /// The item in its queue: a library or report page opened from its list moves on to the
    /// next one after each decision; photos are decided on their list.
    private static func start(_ item: DashboardPage.Queue.Item) -> String {
        switch item.target.kind {
        case .library: SiteURL.library(item.target.key).path + "?status=pending"
        case .report: item.href + "?status=open"
        case .photo: SiteURL.photos.path + "#photo-\(item.target.key)"
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "isShown": isShown
        case "hasLink": hasLink
        case "href": href
        case "text": text
        default: nil
        }
    }
}
