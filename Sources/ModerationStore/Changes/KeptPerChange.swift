import Synchronization

/// Values read from the database, one per key, kept while it stands exactly where they were read
/// (`ChangeStamp`): all are dropped when it moves, and at most `capacity` keys are kept between
/// two commits. For reads that depend on the database and the key alone, never on the time or
/// the viewer, and that a read must make in a snapshot known to stand at that stamp
/// (`ModerationStore.readNowAtStamp`).
final class KeptPerChange<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let capacity: Int
    private let kept = Mutex<(stamp: ChangeStamp, values: [Key: Value])?>(nil)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The value kept for `key` at `stamp`, else `read()`'s, kept. Without a stamp, always read.
    func value(for key: Key, stamp: ChangeStamp?, read: () throws -> Value) rethrows -> Value {
        guard let stamp else { return try read() }
        if let value = kept.withLock({ kept in kept?.stamp == stamp ? kept?.values[key] : nil }) { return value }
        let value = try read()
        kept.withLock { kept in
            var values = kept.flatMap { $0.stamp == stamp && $0.values.count < capacity ? $0.values : nil } ?? [:]
            values[key] = value
            kept = (stamp, values)
        }
        return value
    }
}
