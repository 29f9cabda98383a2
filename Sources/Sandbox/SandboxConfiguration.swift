import Foundation

/// Everything the sandbox backend can be told at start-up.
public struct SandboxConfiguration: Sendable {
    /// The SQLite file that holds the sandbox's state.
    public var databasePath: String
    /// The HMAC secret that signs access and refresh tokens.
    public var tokenSecret: String
    /// How long an access token is valid (the real backend: 5 minutes).
    public var accessTokenLifetime: TimeInterval
    /// How long a refresh token is valid (the real backend: 24 hours).
    public var refreshTokenLifetime: TimeInterval
    /// Rate limits, or `nil` to turn them off.
    public var rateLimits: RateLimitPolicy?
    /// Seed number for the generated data: the same seed gives the same data.
    public var seed: UInt64
    /// Largest request body accepted, in bytes.
    public var maxBodyBytes: Int
    /// How many libraries a new database is seeded with (reports and photos in proportion).
    public var libraryCount: Int
    /// A file to append one NDJSON line to per API request answered, or `nil` for none.
    public var requestLogPath: String?
    /// Staff accounts seeded on a new database beside the usual three: `soak01`, `soak02`, …,
    /// with the staff demo password (for soak runs with many distinct staff members).
    public var extraStaff: Int
    /// Queue fillers seeded on a new database after everything else: this many pending
    /// community photos and this many open reports for each reason, all newer than the
    /// seeded ones, so the oldest waiting items lie beyond the 500 newest of their lists.
    /// The rest of the data set and every id in it stay as without them.
    public var crowdedQueues: Int

    /// The queue filler counts a seed may ask for.
    public static let crowdedQueuesRange = 0...5_000

    /// The extra staff counts a seed may ask for.
    public static let extraStaffRange = 0...99

    /// The library counts a seed may ask for.
    public static let libraryCountRange = SeedGenerator.libraryCountRange

    public init(
        databasePath: String,
        tokenSecret: String = "sandbox-secret-change-me",
        accessTokenLifetime: TimeInterval = 5 * 60,
        refreshTokenLifetime: TimeInterval = 24 * 60 * 60,
        rateLimits: RateLimitPolicy? = RateLimitPolicy(),
        seed: UInt64 = 42,
        maxBodyBytes: Int = 64 * 1024,
        libraryCount: Int = 500,
        requestLogPath: String? = nil,
        extraStaff: Int = 0,
        crowdedQueues: Int = 0
    ) {
        self.databasePath = databasePath
        self.tokenSecret = tokenSecret
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.rateLimits = rateLimits
        self.seed = seed
        self.maxBodyBytes = maxBodyBytes
        self.libraryCount = libraryCount
        self.requestLogPath = requestLogPath
        self.extraStaff = extraStaff
        self.crowdedQueues = crowdedQueues
    }
}

/// Requests allowed per client and endpoint in each fixed window; the real backend's defaults.
public struct RateLimitPolicy: Sendable, Equatable {
    public var windowSeconds: Int
    public var reads: Int
    public var writes: Int
    public var logins: Int
    public var refreshes: Int

    public init(windowSeconds: Int = 300, reads: Int = 60, writes: Int = 10, logins: Int = 10, refreshes: Int = 15) {
        self.windowSeconds = windowSeconds
        self.reads = reads
        self.writes = writes
        self.logins = logins
        self.refreshes = refreshes
    }

    func limit(for kind: EndpointKind) -> Int {
        switch kind {
        case .read: reads
        case .write: writes
        case .login: logins
        case .refresh: refreshes
        }
    }
}

/// Which budget an endpoint draws from.
enum EndpointKind: String, Codable, Sendable {
    case read, write, login, refresh
}
