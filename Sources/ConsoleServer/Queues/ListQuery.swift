import BookCornersAPI
import Foundation
import Hummingbird
import ModerationVocabulary

/// A queue page's filters, read from the URL and made safe: unknown values fall back to
/// defaults, text is trimmed and bounded, paging is clamped to the backend's limits.
struct ListQuery {
    static let pageSizes = [10, 20, 50]
    static let defaultPageSize = 20
    private let parameters: [String: String]

    init(_ request: Request) {
        self.init(query: request.uri.query)
    }

    /// The filters of a query string (`status=pending&order=oldest`), as a form carries a list's.
    init(query: String?) {
        parameters = FormQuery.dictionary(query)
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

    /// The order the URL names, if any and if the list offers it (`offered`).
    func chosenOrder(offered: [QueueOrder] = QueueOrder.byTime) -> QueueOrder? {
        parameters["order"].flatMap(QueueOrder.init(rawValue:)).flatMap { offered.contains($0) ? $0 : nil }
    }

    var page: Page {
        let size = Int(parameters["page_size"] ?? "").flatMap { Self.pageSizes.contains($0) ? $0 : nil } ?? Self.defaultPageSize
        return Page(clampingNumber: Int(parameters["page"] ?? "") ?? 1, size: size)
    }
}
