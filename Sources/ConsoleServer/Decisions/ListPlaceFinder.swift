import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary

/// Finds a report or photo at Book Corners (which has no read by id for them) with at most
/// two list reads, by reading the page where the mirror says the item stands: first under
/// the status the moderator saw (and a report's reason), the narrowest list; then either the
/// page the first read shows it moved to, or the list of every status, where an item stays
/// in place whatever its status. An item neither read shows is "not found", never a change.
struct ListPlaceFinder<Item: Sendable> {
    /// Which list a read asks for.
    enum Filter: Equatable, CustomStringConvertible {
        case status(ItemStatus)
        case everyStatus

        var status: ItemStatus? {
            switch self {
            case .status(let status): status
            case .everyStatus: nil
            }
        }

        var description: String {
            switch self {
            case .status(let status): status.rawValue
            case .everyStatus: "any status"
            }
        }
    }

    /// What the reads established.
    enum Outcome {
        case found(Item)
        /// Neither read showed it: `why` says where it was looked for, in words.
        case notFound(why: String)
        /// The second read's share of the budget is spent until then.
        case budgetSpent(until: Date)
    }

    /// Items per page read (the backend's largest page).
    static var pageSize: Int { 50 }

    /// The item's id, and its place as the mirror knows it (nil: never mirrored, so the newest pages are read).
    let id: Int
    let place: MirrorPlace.Key?
    /// The status the moderator saw.
    let seen: ItemStatus
    /// "report" or "photo", for the words.
    let noun: String
    let key: (Item) -> MirrorPlace.Key
    /// Mirrored items of the list, present, strictly between two places (nil: open end).
    let count: (Filter, _ after: MirrorPlace.Key?, _ before: MirrorPlace.Key?) async throws -> Int
    /// Reads one page of the list under a budget (the first read's or the second's).
    let read: (Filter, Page, CallBudget) async throws(BackendError) -> PagedList<Item>
    /// The budget the first read goes out under (granted by the check before it began).
    let firstRead: CallBudget
    /// Asks for the second read's share of the check budget.
    let reserveSecondRead: () async -> BudgetGrant

    /// Where one page left the search.
    private enum PageVerdict {
        case found(Item)
        /// The page covers the item's place and it is not there: not in this list.
        case absent
        /// The list has moved since the mirror read it: the item should be on this page.
        case elsewhere(page: Int)
    }

    func find() async throws -> Outcome {
        let first: Filter = .status(seen)
        let firstPage = try await pageOfPlace(in: first)
        let firstVerdict = try await look(in: first, page: firstPage, budget: firstRead)
        let second: (filter: Filter, page: Int)
        switch firstVerdict {
        case .found(let item):
            return .found(item)
        case .elsewhere(let page):
            second = (first, page)
        case .absent:
            second = (.everyStatus, try await pageOfPlace(in: .everyStatus))
        }
        let secondRead: CallBudget
        switch await reserveSecondRead() {
        case .granted(let budget): secondRead = budget
        case .wait(let until, _): return .budgetSpent(until: until)
        }
        switch try await look(in: second.filter, page: second.page, budget: secondRead) {
        case .found(let item):
            return .found(item)
        case .absent, .elsewhere:
            let looked =
                second.filter == first
                ? "among the \(seen.rawValue) ones, on pages \(min(firstPage, second.page)) and \(max(firstPage, second.page)) where the console expected it"
                : "among the \(seen.rawValue) ones, nor in the list of every status, on the pages where the console expected it"
            return .notFound(why: "Book Corners did not list this \(noun) \(looked)")
        }
    }

    /// The page the mirror places the item on in `filter`'s list; the first when it has no place.
    private func pageOfPlace(in filter: Filter) async throws -> Int {
        guard let place else { return 1 }
        return page(at: try await count(filter, nil, place))
    }

    /// The page a place (counted from 0) is on.
    private func page(at position: Int) -> Int {
        min(max(position / Self.pageSize + 1, Page.numberRange.lowerBound), Page.numberRange.upperBound)
    }

    private func look(in filter: Filter, page number: Int, budget: CallBudget) async throws -> PageVerdict {
        let page = try await read(filter, Page(clampingNumber: number, size: Self.pageSize), budget)
        if let item = page.items.first(where: { key($0).id == id }) { return .found(item) }
        guard let place, let newest = page.items.first.map(key), let oldest = page.items.last.map(key) else { return .absent }
        // A page past the last one answers the last: its own number says where it starts.
        let start = (page.pagination.page - 1) * Self.pageSize
        if place > newest {
            guard page.pagination.page > 1 else { return .absent }
            // Newer than this page: as many places before it as the mirror has items between.
            let position = start - 1 - (try await count(filter, place, newest))
            return .elsewhere(page: min(self.page(at: max(position, 0)), page.pagination.page - 1))
        }
        if place < oldest {
            guard page.pagination.hasNext else { return .absent }
            let position = start + page.items.count + (try await count(filter, oldest, place))
            return .elsewhere(page: max(self.page(at: position), page.pagination.page + 1))
        }
        return .absent
    }
}
