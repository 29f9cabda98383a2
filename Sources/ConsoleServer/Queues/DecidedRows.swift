import Foundation
import ModerationStore
import ModerationVocabulary

/// Puts rows the viewer just decided back where they stood on a list page, so a decision
/// made from the list shows its outcome in place instead of the row vanishing.
enum DecidedRows {
    /// Where an item sorts: its rank in a ranked order (`ConcernRank`, 0 when not ranked),
    /// its submission time, then its id (as the store orders them).
    struct SortKey: Comparable {
        var rank = 0
        let createdAt: Date
        let id: Int

        static func < (lhs: SortKey, rhs: SortKey) -> Bool {
            (lhs.rank, lhs.createdAt, lhs.id) < (rhs.rank, rhs.createdAt, rhs.id)
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
        func precedes(_ a: SortKey, _ b: SortKey) -> Bool { order.isOldestFirst ? a < b : b < a }
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

    /// The viewer's own decisions on items of `kind` recent enough to show in place, by item key
    /// (the latest per item, unless it put the item back in the queue): the rows a list keeps after they left it.
    static func recentDecisions(
        _ store: ModerationStore, kind: ModerationAction.TargetKind, viewer: Int?, now: Date
    ) async throws -> [String: ModerationAction] {
        guard let viewer else { return [:] }
        let actions = try await store.recentDecisions(actorId: viewer, kind: kind, since: now.addingTimeInterval(-3600))
            // A decision that puts the item back in the queue (an Undo, a return to waiting, a
            // reopening) leaves a waiting row, not a decided one.
            .filter { RowOutcome.isRecent($0, now: now) && ![.pending, .open].contains($0.statusWanted) }
        return Dictionary(actions.map { ($0.targetKey, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
