import Synchronization

/// The HTML of list items (`KeyedFragment`) as last written, shared by every request: a queue
/// page of 50 rows writes again only the rows that changed since someone last saw them.
///
/// A fragment is found by the section that wrote it, its indentation and the whole item, so a
/// change to anything the row shows (a decision, a claim, a mirrored field, a reason, the age
/// text as the clock moves on) makes another key, and the old fragment simply goes unused.
/// Memory is bounded by count: two generations of at most `capacity` fragments each, the
/// older dropped whole when the younger fills, so fragments still in use survive and the rest
/// go. A fragment holds its HTML (about 1.9 kB for a row of the demo's waiting list) and the row
/// it was written for (its text again, a decided row's reason included).
///
/// Equal means equal as Swift compares values: a `String` equals another that is canonically
/// equivalent (`é` as one scalar or as `e` and an accent), so of two rows that differ only so,
/// the second is written with the first one's bytes, which a browser shows as the same text.
final class KeptFragments: Sendable {
    /// Fragments per generation unless configured (`--kept-rows`).
    static let standardCapacity = 512

    /// Which fragment: hashed once, outside the lock, compared whole on a hit.
    struct Key: Hashable, Sendable {
        let section: Int
        let indentation: String
        private let item: any KeptItem
        private let hash: Int

        init(section: Int, indentation: String, item: some KeyedFragment) {
            self.section = section
            self.indentation = indentation
            self.item = KeptItemOf(item)
            var hasher = Hasher()
            hasher.combine(section)
            hasher.combine(indentation)
            hasher.combine(item)
            hash = hasher.finalize()
        }

        static func == (left: Key, right: Key) -> Bool {
            left.hash == right.hash && left.section == right.section && left.indentation == right.indentation && left.item.isEqual(to: right.item)
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private struct Generations {
        var young: [Key: String] = [:]
        var old: [Key: String] = [:]
    }

    let capacity: Int
    private let generations = Mutex(Generations())

    /// `capacity` fragments per generation; 0 keeps nothing (every row written on every view).
    init(capacity: Int = standardCapacity) {
        self.capacity = capacity
    }

    /// The fragment kept for `key`, if any; one found in the older generation moves to the younger.
    func html(for key: Key) -> String? {
        guard capacity > 0 else { return nil }
        return generations.withLock { generations in
            if let html = generations.young[key] { return html }
            guard let html = generations.old.removeValue(forKey: key) else { return nil }
            Self.insert(html, for: key, into: &generations, capacity: capacity)
            return html
        }
    }

    /// Keeps `html` as what `key` writes.
    func keep(_ html: String, for key: Key) {
        guard capacity > 0 else { return }
        generations.withLock { Self.insert(html, for: key, into: &$0, capacity: capacity) }
    }

    /// How many fragments are kept (tests, and the memory bound's check).
    var count: Int {
        generations.withLock { $0.young.count + $0.old.count }
    }

    private static func insert(_ html: String, for key: Key, into generations: inout Generations, capacity: Int) {
        // A key already young (two views that missed it at once) is replaced, not a reason to rotate.
        if generations.young.count >= capacity, generations.young[key] == nil {
            generations.old = generations.young
            generations.young = [:]
        }
        generations.young[key] = html
    }
}

/// An item inside a key, compared in place: a class cast, where casting an existential to the
/// item's type would copy the row out first.
private protocol KeptItem: AnyObject, Sendable {
    func isEqual(to other: any KeptItem) -> Bool
}

private final class KeptItemOf<Item: KeyedFragment>: KeptItem {
    let item: Item

    init(_ item: Item) { self.item = item }

    func isEqual(to other: any KeptItem) -> Bool {
        guard let other = other as? KeptItemOf<Item> else { return false }
        return other === self || other.item == item
    }
}
