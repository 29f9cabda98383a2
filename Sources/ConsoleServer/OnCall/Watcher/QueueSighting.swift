import Foundation

/// What the watcher last saw of a queue's waiting items: the creation dates it read, and how
/// many it did not read (the pages between the newest and the oldest, lists being newest
/// first) and between which dates those lie. Ages are worked out at the time asked, so a
/// sighting stays useful until the next read.
struct QueueSighting: Sendable, Equatable {
    /// Creation dates of the waiting items read.
    var dates: [Date]
    /// Waiting items not read; all created between `unseenRange`'s bounds.
    var unseen: Int
    /// The newest date of the last page and the oldest of the first (the unread lie between).
    var unseenRange: ClosedRange<Date>?

    /// Everything read: the whole queue.
    init(dates: [Date]) {
        self.dates = dates
        self.unseen = 0
        self.unseenRange = nil
    }

    init(dates: [Date], unseen: Int, unseenRange: ClosedRange<Date>?) {
        self.dates = dates
        self.unseen = unseen
        self.unseenRange = unseenRange
    }

    var oldest: Date? { dates.min() }

    /// Items waiting longer than `target` at `now`, and whether that count is exact (else it
    /// is at least that many: some unread items may be past target too).
    func overdue(target: TimeInterval, now: Date) -> (count: Int, exact: Bool) {
        let cutoff = now.addingTimeInterval(-target)
        let read = dates.filter { $0 < cutoff }.count
        guard unseen > 0, let range = unseenRange else { return (read, true) }
        // The unread are older than the first page's oldest: if that one is overdue, they all are.
        if range.upperBound < cutoff { return (read + unseen, true) }
        // And newer than the last page's newest: if that one is not overdue, none of them is.
        if range.lowerBound >= cutoff { return (read, true) }
        return (read, false)
    }
}
