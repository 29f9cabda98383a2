import Foundation

/// Everything `console serve` can be told, already parsed and checked.
public struct ConsoleConfiguration: Sendable {
    public var host: String
    public var port: Int
    /// The console's own SQLite file (sessions, actions, audit, outbox).
    public var databasePath: String
    /// The Book Corners API base URL, ending in `/api/v1/`.
    public var backendURL: URL
    /// Where `*.mustache` pages live; read once at start-up.
    public var templatesDirectory: String
    /// Where CSS, JS and icons live.
    public var publicDirectory: String
    /// Base64 AES key for tokens at rest; `nil` to use (or create) the key file next to the database.
    public var tokenKey: String?
    /// Set when a TLS proxy sits in front, so cookies are marked `Secure`.
    public var behindTLSProxy: Bool
    public var sessionIdleTimeout: TimeInterval
    public var sessionLifetime: TimeInterval
    /// Send each staff member's address as `X-Forwarded-For`, so the backend counts their
    /// calls against their own address. Off by default: the console is one client, and its
    /// budget (`BackendBudget`) counts every call as its own either way.
    public var forwardClientAddress: Bool
    /// The iOS app's bundle id, the `apns-topic` of every notification.
    public var apnsTopic: String
    /// Seconds a connection may stay open without a request being answered or read: between
    /// requests, while a body has stopped arriving, and for a request's whole head (its bytes
    /// do not count as activity until it is complete).
    public var connectionIdleTimeout: TimeInterval
    /// Seconds reading one request may take once its head arrived, however steadily its body trickles.
    public var requestReadTimeout: TimeInterval
    /// Proxies whose `X-Forwarded-For` / `Forwarded` headers name the client.
    public var trustedProxies: TrustedProxies
    /// The header the trusted proxies write the client's address into; the other is ignored.
    public var forwardingHeader: ForwardingHeader
    /// How often a signed-in person's staff status is asked again (`auth/me`).
    public var staffRecheckInterval: TimeInterval
    /// Whether signed-in people are also re-checked in the background, at a pace the read
    /// budget allows (`BackgroundStaffRecheck`); off only in tests of the page-view check alone.
    public var staffRecheckInBackground = true
    /// How long past the last confirmation that someone is staff pages go on while Book
    /// Corners cannot be asked (`--staff-grace-minutes`).
    public var staffUnconfirmedGrace = StaffStatusCheck.defaultGrace
    /// Days without a sign-in (and no session) after which a calendar feed stops.
    public var calendarFeedIdleDays = IdleCalendarFeeds.defaultIdleDays
    /// The longest Book Corners may take to act on a request after the console sent it, its
    /// queueing included: a decision whose answer was lost is checked again only after this
    /// (the decision protocol's I2; the operator guarantees it, docs/operations.md).
    public var decisionInFlightLimit: TimeInterval = 90
    /// How long after its grant Book Corners may still count a call, so that the budget charges
    /// every window that span touches (I5); nil: the in-flight limit and the client's timeout.
    /// Tests against the sandbox, which counts at once, set 0.
    public var backendCountSpan: TimeInterval?
    /// The console's address as browsers see it, when a proxy changes `Host`; POSTs from
    /// any other origin are refused. `nil`: the request's own scheme and `Host`.
    public var publicURL: URL?
    /// How often expired sessions and old sign-in attempts are deleted.
    public var pruneInterval: TimeInterval
    /// How the local mirror of Book Corners is kept; `nil`: no mirror sync runs.
    public var mirror: MirrorConfiguration?
    /// How outbox messages are delivered.
    public var outbox: OutboxDeliveryConfiguration
    /// How long an "I'm reviewing this" claim lasts unless its holder decides or releases it first.
    public var claimDuration: TimeInterval
    /// How the queue watcher looks for overdue queues and alerts the person on call; `nil`: no watcher runs.
    public var onCallWatcher: OnCallWatcherConfiguration?
    /// How long a signed-in page, once rendered, answers the same session's same request while
    /// the database is unchanged (`RecentPages`); 0 renders every request.
    public var recentPageLifetime: TimeInterval
    /// How many queue rows' HTML the templates keep per generation (`KeptFragments`): a row
    /// equal to one written before is not written again. 0 writes every row of every view.
    public var keptRows = ConsoleConfiguration.standardKeptRows
    /// `keptRows` unless configured.
    public static let standardKeptRows = KeptFragments.standardCapacity
    /// Origins besides the backend's own that photos may be shown from (`https://host[:port]`, a CDN).
    public var extraMediaOrigins: [String] = []
    /// A file of 32+ random bytes (mode 0600) that keys the audit chain; `nil` leaves it unkeyed.
    public var auditKeyPath: String? = nil
    /// Where `/metrics` is served, apart from the console's own address; `nil` serves none.
    public var metrics: MetricsListenerConfiguration? = nil
    /// The backend's limits every call is budgeted within, in the database, together with every
    /// other console process on it; `nil` budgets only the mirror's and the watcher's reads (tests
    /// against a sandbox without limits).
    public var backendLimits: BackendLimits? = BackendLimits()
    /// `/readyz` fails once Book Corners has not answered for this long; with nothing else
    /// calling it, a probe reads its statistics after a quarter of this.
    public var readinessBackendSilence: TimeInterval = 120
    /// How long `/readyz` keeps its verdict on the database file's integrity (SQLite's
    /// `quick_check` walks the whole file, so never on every probe).
    public var readinessIntegrityInterval: TimeInterval = 60
    /// How many open pages may follow changes (`/events`) per session, and in the whole process.
    public var liveStreamsPerSession = 4
    /// Open live streams one person may hold, across every console process on the database.
    public var liveStreamsPerPerson = 8
    public var liveStreams = 200
    /// How long one write of a live stream may wait for a page that stopped reading before the
    /// stream is ended and its place freed.
    public var liveStreamStallLimit: Duration = .seconds(30)
    /// How long one live stream lasts before its page reconnects (missing nothing).
    public var liveStreamLifetime: TimeInterval = 30 * 60
    /// How often the reasons of every waiting library are worked out again for the queue's
    /// filter by reason (within the pending sweep's 120 s).
    public var concernRefreshInterval: TimeInterval = 60

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        databasePath: String,
        backendURL: URL,
        templatesDirectory: String = "Templates",
        publicDirectory: String = "Public",
        tokenKey: String? = nil,
        behindTLSProxy: Bool = false,
        sessionIdleTimeout: TimeInterval = 30 * 60,
        sessionLifetime: TimeInterval = 12 * 60 * 60,
        forwardClientAddress: Bool = false,
        apnsTopic: String = "org.bookcorners.app",
        connectionIdleTimeout: TimeInterval = 60,
        requestReadTimeout: TimeInterval = 30,
        trustedProxies: TrustedProxies = .none,
        forwardingHeader: ForwardingHeader = .xForwardedFor,
        staffRecheckInterval: TimeInterval = 5 * 60,
        publicURL: URL? = nil,
        pruneInterval: TimeInterval = 60 * 60,
        mirror: MirrorConfiguration? = MirrorConfiguration(),
        outbox: OutboxDeliveryConfiguration = OutboxDeliveryConfiguration(),
        claimDuration: TimeInterval = 15 * 60,
        onCallWatcher: OnCallWatcherConfiguration? = nil,
        recentPageLifetime: TimeInterval = 1
    ) {
        self.host = host
        self.port = port
        self.databasePath = databasePath
        self.backendURL = backendURL
        self.templatesDirectory = templatesDirectory
        self.publicDirectory = publicDirectory
        self.tokenKey = tokenKey
        self.behindTLSProxy = behindTLSProxy
        self.sessionIdleTimeout = sessionIdleTimeout
        self.sessionLifetime = sessionLifetime
        self.forwardClientAddress = forwardClientAddress
        self.apnsTopic = apnsTopic
        self.connectionIdleTimeout = connectionIdleTimeout
        self.requestReadTimeout = requestReadTimeout
        self.trustedProxies = trustedProxies
        self.forwardingHeader = forwardingHeader
        self.staffRecheckInterval = staffRecheckInterval
        self.publicURL = publicURL
        self.pruneInterval = pruneInterval
        self.mirror = mirror
        self.outbox = outbox
        self.claimDuration = claimDuration
        self.onCallWatcher = onCallWatcher
        self.recentPageLifetime = recentPageLifetime
    }
}
