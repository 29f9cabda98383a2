import BookCornersAPI
import Foundation
import Hummingbird
import Mustache

/// A queue page's filters, read from the URL and made safe: unknown values fall back to
/// defaults, text is trimmed and bounded, paging is clamped to the backend's limits.
struct ListQuery {
    static let pageSizes = [10, 20, 50]
    private let parameters: [String: String]

    init(_ request: Request) {
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { parameters[String(key)] = String(value) }
        self.parameters = parameters
    }

    func text(_ name: String, maxLength: Int) -> String? {
        guard let value = parameters[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return String(value.prefix(maxLength))
    }

    func choice<T: RawRepresentable>(_ name: String, default fallback: T) -> T where T.RawValue == String {
        parameters[name].flatMap(T.init(rawValue:)) ?? fallback
    }

    /// A two-letter country code, upper-cased; anything else is ignored.
    var country: String? {
        guard let value = text("country", maxLength: 2)?.uppercased(), value.count == 2, value.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            return nil
        }
        return value
    }

    var page: Page {
        let size = Int(parameters["page_size"] ?? "").flatMap { Self.pageSizes.contains($0) ? $0 : nil } ?? 20
        return Page(clampingNumber: Int(parameters["page"] ?? "") ?? 1, size: size)
    }
}

/// Previous/next links that keep the page's filters.
struct Pager: MustacheParent {
    let summary: String
    let previousHref: String?
    let nextHref: String?
    let pageSizes: [PageSizeOption]

    struct PageSizeOption {
        let size: Int
        let selected: Bool
    }

    func child(named key: String) -> Any? {
        switch key {
        case "summary": summary
        case "hasPrevious": previousHref != nil
        case "previousHref": previousHref ?? ""
        case "hasNext": nextHref != nil
        case "nextHref": nextHref ?? ""
        default: nil
        }
    }

    init(path: String, filters: [(String, String?)], pagination: Pagination) {
        func href(_ page: Int) -> String {
            var components = URLComponents()
            components.path = path
            components.queryItems = filters.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
                + [URLQueryItem(name: "page", value: String(page)), URLQueryItem(name: "page_size", value: String(pagination.pageSize))]
            return components.string ?? path
        }
        let noun = pagination.total == 1 ? "item" : "items"
        summary = "Page \(pagination.page) of \(pagination.totalPages) · \(pagination.total) \(noun)"
        previousHref = pagination.hasPrevious ? href(pagination.page - 1) : nil
        nextHref = pagination.hasNext ? href(pagination.page + 1) : nil
        pageSizes = ListQuery.pageSizes.map { PageSizeOption(size: $0, selected: $0 == pagination.pageSize) }
    }
}

/// One option of a filter's `<select>`.
struct FilterOption: MustacheParent {
    let value: String
    let label: String
    let selected: Bool

    /// "Any …" first, then each value as its own label.
    static func choices(_ values: [String], selected: String?, any: String) -> [FilterOption] {
        var options = [FilterOption(value: "", label: any, selected: selected == nil)]
            + values.map { FilterOption(value: $0, label: $0, selected: $0 == selected) }
        // A value typed into the URL that the log does not hold yet still shows as chosen.
        if let selected, !values.contains(selected) { options.append(FilterOption(value: selected, label: selected, selected: true)) }
        return options
    }

    func child(named key: String) -> Any? {
        switch key {
        case "value": value
        case "label": label
        case "selected": selected
        default: nil
        }
    }
}
