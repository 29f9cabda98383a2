import Foundation

/// How the client reaches the backend and how patient it is.
public struct BackendClientConfiguration: Sendable {
    /// The API base URL, ending in `/api/v1/`.
    public var baseURL: URL
    public var connectTimeout: Duration
    /// Longest wait for one answer, connection included.
    public var requestTimeout: Duration
    public var readRetry: RetryPolicy
    /// Sent as `User-Agent`.
    public var userAgent: String
    /// Largest answer body accepted.
    public var maxResponseBytes: Int
    /// Told of every exchange (metrics, readiness); nil for none.
    public var observer: (any BackendCallObserver)?
    /// Origins besides the backend's own that photos may come from (`scheme://host[:port]`, a CDN).
    public var extraMediaOrigins: [String]
    /// Asked before every HTTP attempt and told of every 429; nil: no budget is kept.
    public var gate: (any BackendCallGate)?

    /// The client's own wait for one answer unless configured otherwise.
    public static let defaultRequestTimeout: Duration = .seconds(10)

    public init(
        baseURL: URL,
        connectTimeout: Duration = .seconds(3),
        requestTimeout: Duration = defaultRequestTimeout,
        readRetry: RetryPolicy = RetryPolicy(),
        userAgent: String = "BookCornersModerationConsole/\(ConsoleVersion.current)",
        maxResponseBytes: Int = 8 * 1024 * 1024,
        observer: (any BackendCallObserver)? = nil,
        extraMediaOrigins: [String] = [],
        gate: (any BackendCallGate)? = nil
    ) {
        self.baseURL = baseURL.absoluteString.hasSuffix("/") ? baseURL : baseURL.appendingPathComponent("")
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.readRetry = readRetry
        self.userAgent = userAgent
        self.maxResponseBytes = maxResponseBytes
        self.observer = observer
        self.extraMediaOrigins = extraMediaOrigins
        self.gate = gate
    }
}

/// The console's version, for `User-Agent` and the footer.
public enum ConsoleVersion {
    public static let current = "0.1.0"
}

/// Retries of reads: exponential backoff with full jitter, bounded in attempts and in time.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// No retry starts once this much time has passed since the first attempt.
    public var totalBudget: Duration

    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(200), maxDelay: Duration = .seconds(2), totalBudget: Duration = .seconds(15)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.totalBudget = totalBudget
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The pause before retry number `retry` (1-based): uniform in 0...min(max, base·2^(retry-1)).
    func delay(beforeRetry retry: Int) -> Duration {
        let ceiling = min(maxDelay, baseDelay * (1 << min(retry - 1, 20)))
        let milliseconds = Double(ceiling.components.seconds) * 1000 + Double(ceiling.components.attoseconds) / 1e15
        return .milliseconds(Int.random(in: 0...max(0, Int(milliseconds))))
    }
}
