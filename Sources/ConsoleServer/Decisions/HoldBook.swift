import Foundation

/// When each endpoint may be called again.
actor HoldBook {
    private var holds: [String: Date] = [:]

    /// The latest hold among `keys`, if any.
    func until(forAny keys: [String]) -> Date? { keys.compactMap { holds[$0] }.max() }

    func set(_ key: String, until: Date) {
        holds[key] = max(holds[key] ?? until, until)
    }
}
