import BookCornersAPI
import Foundation
import Hummingbird

/// A queue page's filters, read from the URL and made safe: unknown values fall back to
/// defaults, text is trimmed and bounded, paging is clamped to the backend's limits.
struct ListQuery {
    static let pageSizes = [10, 20, 50]
    private let parameters: [String: String]

    init(_ request: Request) {
        parameters = FormQuery.dictionary(request.uri.query)
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
