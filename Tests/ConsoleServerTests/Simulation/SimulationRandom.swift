import Foundation
import Synchronization

/// The simulation's one source of chance: SplitMix64, so that a seed names one schedule on
/// every machine (Swift's own generator is not seedable).
final class SimulationRandom: Sendable {
    private let state: Mutex<UInt64>

    init(seed: UInt64) {
        state = Mutex(seed)
    }

    func next() -> UInt64 {
        state.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A whole number in `range`.
    func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A number in `range`, to the millisecond (the store keeps milliseconds).
    func seconds(_ range: ClosedRange<Double>) -> Double {
        let unit = Double(next() >> 11) / Double(1 << 53)
        return ((range.lowerBound + unit * (range.upperBound - range.lowerBound)) * 1000).rounded() / 1000
    }

    /// True with probability `p`.
    func chance(_ p: Double) -> Bool {
        Double(next() >> 11) / Double(1 << 53) < p
    }

    func pick<T>(_ items: [T]) -> T? {
        items.isEmpty ? nil : items[int(0...(items.count - 1))]
    }

    /// One of `choices`, each as likely as its weight.
    func weighted<T>(_ choices: [(T, Int)]) -> T? {
        let total = choices.reduce(0) { $0 + max(0, $1.1) }
        guard total > 0 else { return nil }
        var roll = int(0...(total - 1))
        for (choice, weight) in choices where weight > 0 {
            if roll < weight { return choice }
            roll -= weight
        }
        return nil
    }
}
