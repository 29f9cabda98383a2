import Foundation

/// Fixed-window request counting per client and endpoint, windows aligned to the clock
/// (so every client's window resets at the same multiple of `windowSeconds`).
actor RateLimiter {
    private struct Bucket: Hashable {
        let client: String
        let endpoint: String
        let windowStart: Int
    }

    private let policy: RateLimitPolicy
    private var counts: [Bucket: Int] = [:]
    private var currentWindow = 0

    init(policy: RateLimitPolicy) {
        self.policy = policy
    }

    /// Counts one request; answers the seconds to wait when the budget is used up.
    func admit(client: String, endpoint: String, kind: EndpointKind, now: Date = Date()) -> Int? {
        let seconds = Int(now.timeIntervalSince1970)
        let windowStart = seconds - seconds % policy.windowSeconds
        if windowStart != currentWindow {
            counts.removeAll(keepingCapacity: true)
            currentWindow = windowStart
        }
        let bucket = Bucket(client: client, endpoint: endpoint, windowStart: windowStart)
        let used = counts[bucket, default: 0]
        guard used < policy.limit(for: kind) else {
            return max(1, windowStart + policy.windowSeconds - seconds)
        }
        counts[bucket] = used + 1
        return nil
    }
}
