import Foundation
import ModerationVocabulary

/// Puts rows the viewer just decided back where they stood on a list page, so a decision
/// made from the list shows its outcome in place instead of the row vanishing.
enum DecidedRows {
    /// Where an item sorts: its submission time, then its id (as the store orders them).
    struct SortKey: Comparable {
        let createdAt: Date
        let id: Int

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            (lhs.createdAt, lhs.id) < (rhs.createdAt, rhs.id)
        }
    }

    /// `page` in `order` with those of `decided` (rows no longer matching the list) that fall
    /// within the page's span: the first page reaches back to the list's start, the last
    /// page to its end, so every decided row shows on exactly one page.
    static func merge<Row>(
        page: [Row], decided: [Row], order: QueueOrder, isFirstPage: Bool, isLastPage: Bool, key: (Row) -> SortKey
    ) -> [Row] {
        guard !decided.isEmpty else { return page }
        // In list order: "before" is what the page's first row follows.
        func precedes(_ a: SortKey, _ b: SortKey) -> Bool { order == .oldest ? a < b : b < a }
        let first = page.first.map(key)
        let last = page.last.map(key)
        let kept = decided.filter { row in
            let position = key(row)
            let afterStart = isFirstPage || first.map { !precedes(position, $0) } ?? false
            let beforeEnd = isLastPage || last.map { !precedes($0, position) } ?? false
            return afterStart && beforeEnd
        }
        return (page + kept).sorted { precedes(key($0), key($1)) }
    }
}
