import Synchronization

/// A value read from the database once per change: kept while the database stands exactly where
/// it stood when it was read (`ChangeStamp`, which any commit by any process moves), so the page
/// views between two commits read it once, and the first view after a commit reads it anew.
/// For values that depend on the database alone, never on the time or the viewer.
final class ReadOncePerChange<Value: Sendable>: Sendable {
    private let copy = Mutex<(stamp: ChangeStamp, value: Value)?>(nil)

    /// The kept value when `stamp` is where it was read, else `read()`'s, kept when nothing was
    /// committed while it was read (`stampNow` asked again after). Without a stamp, always read.
    func value(stamp: ChangeStamp?, stampNow: () -> ChangeStamp?, read: () throws -> Value) rethrows -> Value {
        guard let stamp else { return try read() }
        if let kept = copy.withLock({ copy in copy.flatMap { $0.stamp == stamp ? $0.value : nil } }) { return kept }
        let value = try read()
        if stampNow() == stamp { copy.withLock { $0 = (stamp, value) } }
        return value
    }
}

/// The store's reads that every page view makes and that change only with the database.
final class PerChangeReads: Sendable {
    let mirrorSummary = ReadOncePerChange<MirrorSummary?>()
    let mirrorHealth = ReadOncePerChange<MirrorHealth?>()
    let queueTargets = ReadOncePerChange<QueueTargets>()
    let concernSettings = ReadOncePerChange<ConcernSettings>()
    let lastLiveChangeID = ReadOncePerChange<Int64>()
    let mirrorScopeStates = ReadOncePerChange<[MirrorScope: MirrorScopeState]>()
    /// A search's matches in the trigram index by its MATCH text (nil: more than a list reads
    /// one by one): paging through a search, and every list shown between two commits, read the
    /// index once (at 50 000 libraries it was most of what a search costs beyond a plain list).
    let searchMatches = KeptPerChange<String, [Int]?>(capacity: 64)
}
