import Mustache

/// The list an item's page was opened from, and its neighbours there: "back to the list",
/// previous, next, and the `queue` its decision forms send so a decision leads to the next item.
struct QueueLinks: MustacheParent {
    /// "pending libraries, oldest first".
    let label: String
    let listURL: String
    let previousURL: String
    let hasPrevious: Bool
    let nextURL: String
    let hasNext: Bool
    /// What the decision forms send back as `queue`, so a decision leads to the next one.
    let formValue: String
    /// This page, with the list it was opened from.
    let hereURL: String
    /// The item does not match the list's filters: previous and next are its neighbours by time.
    var isOutside = false

    init(label: String, listURL: String, formValue: String, previous: String?, next: String?, here: String) {
        self.label = label
        self.listURL = listURL
        previousURL = previous ?? ""
        hasPrevious = previous != nil
        nextURL = next ?? ""
        hasNext = next != nil
        self.formValue = formValue
        hereURL = here
    }

    init(queue: LibraryQueueContext, previous: String?, next: String?, here: String) {
        let status = queue.filter.status == .all ? "all" : queue.filter.status.rawValue
        let filtered = queue.filter.text != nil || queue.filter.country != nil || queue.filter.source != nil
        self.init(
            label: "\(status) libraries\(filtered ? " (filtered)" : ""), \(queue.order.label.lowercased())", listURL: queue.listPath,
            formValue: queue.formValue, previous: previous, next: next, here: here)
    }

    init(queue: ReportQueueContext, previous: String?, next: String?, here: String) {
        let status = queue.status == .all ? "all" : queue.status.rawValue
        self.init(
            label: "\(status) reports\(queue.reason.map { " (\($0.label.lowercased()))" } ?? ""), \(queue.order.label.lowercased())",
            listURL: queue.listPath, formValue: queue.formValue, previous: previous, next: next, here: here)
    }

    static let none = QueueLinks(queue: LibraryQueueContext(ListQuery(query: nil)), previous: nil, next: nil, here: SiteURL.libraries.path)

    func child(named key: String) -> Any? {
        switch key {
        case "label": label
        case "listURL": listURL
        case "previousURL": previousURL
        case "hasPrevious": hasPrevious
        case "nextURL": nextURL
        case "hasNext": hasNext
        case "formValue": formValue
        case "hereURL": hereURL
        case "isOutside": isOutside
        default: nil
        }
    }
}
