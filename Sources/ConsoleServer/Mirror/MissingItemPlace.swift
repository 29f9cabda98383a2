import Foundation

/// Where an item a pass did not list stands against one page of its list, read where it
/// should be (the backend lists newest first, then highest id first).
enum MissingItemPlace: Equatable {
    /// The page lists it: it exists.
    case listed
    /// It would stand on an earlier page: everything on this one is older.
    case before
    /// It would stand on a later page: everything on this one is newer.
    case after
    /// The page spans where it would stand and does not list it: it is gone.
    case gone

    static func of(id: Int, createdAt: Date, in items: [(id: Int, createdAt: Date)], page: Int, hasNext: Bool) -> MissingItemPlace {
        if items.contains(where: { $0.id == id }) { return .listed }
        func precedes(_ a: (id: Int, createdAt: Date), _ b: (id: Int, createdAt: Date)) -> Bool {
            a.createdAt > b.createdAt || (a.createdAt == b.createdAt && a.id > b.id)
        }
        let item = (id: id, createdAt: createdAt)
        if page > 1, let first = items.first, precedes(item, first) { return .before }
        if hasNext, let last = items.last, precedes(last, item) { return .after }
        return .gone
    }
}
