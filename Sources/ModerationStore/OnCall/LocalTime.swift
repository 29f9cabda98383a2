/// A wall-clock time of day (hour and minute) in a rotation's own time zone.
public struct LocalTime: Sendable, Hashable, Codable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    public init(hour: Int, minute: Int) {
        self.hour = hour
        self.minute = minute
    }

    /// `09:00`; `nil` for anything else or a time no clock shows (`24:10`).
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        self.init(hour: hour, minute: minute)
    }

    /// Minutes after midnight, as the database stores it.
    public var minutesAfterMidnight: Int { hour * 60 + minute }

    public init(minutesAfterMidnight: Int) {
        self.init(hour: minutesAfterMidnight / 60, minute: minutesAfterMidnight % 60)
    }

    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}
