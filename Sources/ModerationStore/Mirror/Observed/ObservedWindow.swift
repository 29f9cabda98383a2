import Foundation

/// When a change made outside the console happened: after the read that last showed the
/// old status, before the one that showed the new. It is kept as an observed entry's
/// `outcomeDetail`, so the hash covers it and exports carry it.
public struct ObservedWindow: Equatable, Sendable {
    public var from: Date
    public var to: Date

    public init(from: Date, to: Date) {
        self.from = from
        self.to = max(from, to)
    }

    private static let prefix = "changed outside the console between "
    private static let separator = " and "

    /// The text stored in the entry: "changed outside the console between <ISO> and <ISO>".
    public var detail: String { Self.prefix + ISOTime.string(from) + Self.separator + ISOTime.string(to) }

    /// Reads a window back from an entry's `outcomeDetail`; `nil` for any other text.
    public init?(detail: String) {
        guard detail.hasPrefix(Self.prefix) else { return nil }
        let times = detail.dropFirst(Self.prefix.count).components(separatedBy: Self.separator)
        guard times.count == 2, let from = ISOTime.parse(times[0]), let to = ISOTime.parse(times[1]) else { return nil }
        self.init(from: from, to: to)
    }

    /// The best single guess of when it happened: statistics time an observed decision here.
    public var middle: Date { from.addingTimeInterval(to.timeIntervalSince(from) / 2) }
}
