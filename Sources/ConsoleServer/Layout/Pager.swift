import BookCornersAPI
import Foundation
import ModerationVocabulary
import Mustache

/// Previous/next links that keep the page's filters.
struct Pager: MustacheParent {
    let summary: String
    let previousHref: String?
    let nextHref: String?
    let pageSizes: [PageSizeOption]
    /// "← Newer" / "Older →" in a list newest first, the other way round oldest first.
    let previousLabel: String
    let nextLabel: String

    /// The page sizes offered under a list (the address also takes 10).
    static let offeredPageSizes = [20, 50]

    /// "Per page: 20 · 50": the first page of the same list at another size.
    struct PageSizeOption: MustacheParent {
        let size: Int
        let selected: Bool
        let href: String

        func child(named key: String) -> Any? {
            switch key {
            case "size": size
            case "selected": selected
            case "href": href
            default: nil
            }
        }
    }

    func child(named key: String) -> Any? {
        switch key {
        case "summary": summary
        case "hasPrevious": previousHref != nil
        case "previousHref": previousHref ?? ""
        case "hasNext": nextHref != nil
        case "nextHref": nextHref ?? ""
        case "previousLabel": previousLabel
        case "nextLabel": nextLabel
        case "pageSizes": pageSizes
        default: nil
        }
    }

    init(url: SiteURL, filters: [(String, String?)], pagination: Pagination, order: QueueOrder = .newest) {
        func href(_ page: Int) -> String {
            url.path(query: (filters + [("page", String(page)), ("page_size", String(pagination.pageSize))]).map { (name: $0.0, value: $0.1) })
        }
        summary = "Page \(pagination.page) of \(pagination.totalPages) · \(CountText.of(pagination.total, "item", "items"))"
        previousHref = pagination.hasPrevious ? href(pagination.page - 1) : nil
        nextHref = pagination.hasNext ? href(pagination.page + 1) : nil
        switch order {
        case .newest: (previousLabel, nextLabel) = ("Newer", "Older")
        case .oldest: (previousLabel, nextLabel) = ("Older", "Newer")
        // Ranked pages are not a span of time: the next page is the next reasons, or none.
        case .needsALookFirst: (previousLabel, nextLabel) = ("Previous", "Next")
        }
        pageSizes = Self.offeredPageSizes.map { size in
            PageSizeOption(
                size: size, selected: size == pagination.pageSize,
                href: url.path(query: (filters + [("page_size", String(size))]).map { (name: $0.0, value: $0.1) }))
        }
    }
}
