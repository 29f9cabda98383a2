import NIOHTTP1

/// The budget a backend call is counted in: the backend's rate-limit scope (as
/// backend-api.md names them) and the kind of limit it spends. Metrics label calls with it,
/// so a label never carries a slug or an id.
public struct BackendEndpoint: Hashable, Sendable {
    /// Which of the backend's limits a call spends: 60 reads, 10 writes, 10 sign-ins or 15 refreshes per window.
    public enum Kind: String, Sendable, CaseIterable {
        case read, write
        case signIn = "sign_in"
        case refresh
    }

    public let scope: String
    public let kind: Kind

    public init(scope: String, kind: Kind) {
        self.scope = scope
        self.kind = kind
    }

    /// The endpoint of a call to `path`, relative to the API base (`libraries/moderation/…`).
    public init(method: HTTPMethod, path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let isWrite = method != .GET && method != .HEAD
        switch (segments.first, segments.dropFirst().first) {
        case ("auth", "login"): self.init(scope: "api-auth-login", kind: .signIn)
        case ("auth", "refresh"): self.init(scope: "api-auth-refresh", kind: .refresh)
        case ("auth", _): self.init(scope: "api-auth-me", kind: .read)
        case ("statistics", _): self.init(scope: "api-statistics", kind: .read)
        case ("libraries", "moderation"):
            let rest = Array(segments.dropFirst(2))
            switch rest.first {
            case "summary": self.init(scope: "api-moderation-summary", kind: .read)
            case "reports":
                self.init(scope: isWrite ? "api-report-moderation-update" : "api-report-moderation-list", kind: isWrite ? .write : .read)
            case "photos":
                self.init(scope: isWrite ? "api-photo-moderation-update" : "api-photo-moderation-list", kind: isWrite ? .write : .read)
            case nil, "pending": self.init(scope: "api-library-moderation-list", kind: .read)
            default:
                self.init(scope: isWrite ? "api-library-moderation-update" : "api-library-moderation-detail", kind: isWrite ? .write : .read)
            }
        case ("libraries", _): self.init(scope: "api-library-list", kind: isWrite ? .write : .read)
        default: self.init(scope: "other", kind: isWrite ? .write : .read)
        }
    }
}

/// One finished exchange with the backend, as an observer sees it.
public struct BackendCallRecord: Sendable {
    public let endpoint: BackendEndpoint
    /// The HTTP status, or nil when no answer came (refused, timed out, cut off).
    public let status: Int?
    public let duration: Duration

    public init(endpoint: BackendEndpoint, status: Int?, duration: Duration) {
        self.endpoint = endpoint
        self.status = status
        self.duration = duration
    }
}

/// Told of every exchange the client makes (each retry is its own), for metrics and readiness.
public protocol BackendCallObserver: Sendable {
    func backendCallFinished(_ call: BackendCallRecord)
}
