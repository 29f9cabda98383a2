import AsyncHTTPClient
import Foundation
import Logging
import ModerationVocabulary
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The one way the console talks to the Book Corners API. It hides the backend's rough
/// edges: refreshes expired tokens (once, shared), retries reads that failed in transit,
/// never lets an HTTP cache answer, resolves media URLs, and turns every failure into a
/// `BackendError`. Writes are never retried here: the action queue decides that.
public final class BackendClient: Sendable {
    public let configuration: BackendClientConfiguration
    private let http: HTTPClient
    private let logger: Logger
    private let origin: URL
    /// Which photo addresses pass into pages; the rest become "" ("no photo").
    public let mediaPolicy: MediaURLPolicy

    public init(configuration: BackendClientConfiguration, logger: Logger = Logger(label: "backend-client")) {
        self.configuration = configuration
        self.logger = logger
        var components = URLComponents(url: configuration.baseURL, resolvingAgainstBaseURL: false)
        components?.path = "/"
        components?.query = nil
        self.origin = components?.url ?? configuration.baseURL
        self.mediaPolicy = MediaURLPolicy(backendOrigin: self.origin, extraOrigins: configuration.extraMediaOrigins)
        var httpConfiguration = HTTPClient.Configuration(
            timeout: .init(connect: .init(configuration.connectTimeout), read: .init(configuration.requestTimeout)))
        httpConfiguration.redirectConfiguration = .disallow
        // A refused connection fails the call at once. By default the pool would keep
        // reconnecting until the request's deadline, so with the backend down every page
        // took the full request timeout per call. Retrying is decided above this client:
        // the read cache serves what it has, the action runner backs off.
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        httpConfiguration.decompression = .enabled(limit: .ratio(20))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
    }

    /// Closes the connection pool. Call once, when nothing uses the client any more.
    public func shutdown() async throws {
        try await http.shutdown()
    }

    // MARK: Authentication

    /// Signs in with a username or e-mail address.
    public func signIn(username: String, password: String, context: CallContext = CallContext()) async throws(BackendError) -> TokenPair {
        let body = Components.Schemas.LoginIn(username: username, password: password)
        return try await call(.POST, "auth/login", body: body, as: TokenPair.self, context: context, isSignIn: true)
    }

    /// A new access token for a refresh token; `sessionExpired` when the refresh token is no good.
    public func refreshAccessToken(_ refreshToken: String, context: CallContext = CallContext()) async throws(BackendError) -> String {
        do {
            let body = Components.Schemas.RefreshIn(refresh: refreshToken)
            return try await call(.POST, "auth/refresh", body: body, as: Components.Schemas.AccessTokenOut.self, context: context).access
        } catch .invalidCredentials, .validation {
            throw .sessionExpired
        }
    }

    /// The account the credentials belong to.
    public func me(_ credentials: StaffCredentials, context: CallContext = CallContext()) async throws(BackendError) -> Account {
        try await call(.GET, "auth/me", as: Account.self, credentials: credentials, context: context)
    }

    // MARK: Moderation reads

    public func summary(_ credentials: StaffCredentials, context: CallContext = CallContext()) async throws(BackendError) -> ModerationSummary {
        try await call(.GET, "libraries/moderation/summary", as: ModerationSummary.self, credentials: credentials, context: context)
    }

    /// Library submissions, newest first.
    public func libraries(
        _ filter: LibraryFilter, page: Page, credentials: StaffCredentials, context: CallContext = CallContext()
    ) async throws(BackendError) -> PagedList<ModerationLibrary> {
        var query = [("status", filter.status.rawValue)]
        query += Self.optional([("q", filter.text), ("country", filter.country), ("source", filter.source)])
        let list = try await call(
            .GET, "libraries/moderation", query: query + Self.paging(page), as: Components.Schemas.LibraryModerationListOut.self,
            credentials: credentials, context: context)
        return PagedList(items: list.items.map(resolvingMedia), pagination: list.pagination)
    }

    /// One library in any status.
    public func library(slug: String, credentials: StaffCredentials, context: CallContext = CallContext()) async throws(BackendError) -> ModerationLibrary {
        resolvingMedia(
            try await call(
                .GET, "libraries/moderation/" + Self.pathSegment(slug), as: ModerationLibrary.self, credentials: credentials, context: context))
    }

    public func reports(
        status: ReportStatusFilter, reason: ReportReasonFilter = .all, page: Page, credentials: StaffCredentials,
        context: CallContext = CallContext()
    ) async throws(BackendError) -> PagedList<ModerationReport> {
        let list = try await call(
            .GET, "libraries/moderation/reports", query: [("status", status.rawValue), ("reason", reason.queryValue)] + Self.paging(page),
            as: Components.Schemas.ReportModerationListOut.self, credentials: credentials, context: context)
        return PagedList(items: list.items.map(resolvingMedia), pagination: list.pagination)
    }

    public func photos(
        status: StatusFilter, page: Page, credentials: StaffCredentials, context: CallContext = CallContext()
    ) async throws(BackendError) -> PagedList<ModerationPhoto> {
        let list = try await call(
            .GET, "libraries/moderation/photos", query: [("status", status.rawValue)] + Self.paging(page),
            as: Components.Schemas.PhotoModerationListOut.self, credentials: credentials, context: context)
        return PagedList(items: list.items.map(resolvingMedia), pagination: list.pagination)
    }

    // MARK: Moderation writes (never retried here)

    /// Sets a library's status; `rejectionReason` (at most 2000 characters) is kept only when rejecting.
    public func setLibraryStatus(
        slug: String, to status: LibraryStatus, rejectionReason: String? = nil, credentials: StaffCredentials,
        context: CallContext = CallContext()
    ) async throws(BackendError) -> ModerationLibrary {
        let body = Components.Schemas.LibraryModerationUpdateIn(
            status: .init(rawValue: status.rawValue) ?? .pending, rejectionReason: rejectionReason)
        return resolvingMedia(
            try await call(
                .PATCH, "libraries/moderation/" + Self.pathSegment(slug), body: body, as: ModerationLibrary.self,
                credentials: credentials, context: context))
    }

    public func setReportStatus(
        id: Int, to status: ReportStatus, credentials: StaffCredentials, context: CallContext = CallContext()
    ) async throws(BackendError) -> ModerationReport {
        let body = Components.Schemas.ReportModerationUpdateIn(status: .init(rawValue: status.rawValue) ?? .open)
        return resolvingMedia(
            try await call(
                .PATCH, "libraries/moderation/reports/\(id)", body: body, as: ModerationReport.self, credentials: credentials, context: context))
    }

    /// Approving a photo makes it its library's photo.
    public func setPhotoStatus(
        id: Int, to status: PhotoStatus, credentials: StaffCredentials, context: CallContext = CallContext()
    ) async throws(BackendError) -> ModerationPhoto {
        let body = Components.Schemas.PhotoModerationUpdateIn(status: .init(rawValue: status.rawValue) ?? .pending)
        return resolvingMedia(
            try await call(
                .PATCH, "libraries/moderation/photos/\(id)", body: body, as: ModerationPhoto.self, credentials: credentials, context: context))
    }

    // MARK: Public

    public func statistics(context: CallContext = CallContext()) async throws(BackendError) -> Statistics {
        try await call(.GET, "statistics/", as: Statistics.self, context: context)
    }

    // MARK: Media

    /// An absolute URL for a media path (relative paths resolve against the backend's origin),
    /// or nil when there is none or the media policy refuses it.
    public func mediaURL(_ path: String) -> URL? {
        let accepted = mediaPolicy.accepted(path)
        return accepted.isEmpty ? nil : URL(string: accepted)
    }

    /// The backend's origin (`scheme://host:port`), e.g. for a Content-Security-Policy.
    public var mediaOrigin: String {
        var text = origin.absoluteString
        if text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The item with its media paths made absolute, and those the media policy refuses emptied.
    private func resolvingMedia<Item: CarriesMedia>(_ item: Item) -> Item {
        var copy = item
        for field in Item.mediaFields { copy[keyPath: field] = mediaPolicy.accepted(item[keyPath: field]) }
        return copy
    }

    // MARK: Transport

    private struct NoBody: Encodable {}

    private func call<Answer: Decodable>(
        _ method: NIOHTTP1.HTTPMethod, _ path: String, query: [(String, String)] = [], as answer: Answer.Type,
        credentials: StaffCredentials? = nil, context: CallContext, isSignIn: Bool = false
    ) async throws(BackendError) -> Answer {
        try await call(method, path, query: query, body: NoBody?.none, as: answer, credentials: credentials, context: context, isSignIn: isSignIn)
    }

    /// Sends one call: a token about to expire is refreshed first; with a 401 on a credentialed
    /// call, refreshes (shared) and retries once.
    private func call<Body: Encodable, Answer: Decodable>(
        _ method: NIOHTTP1.HTTPMethod, _ path: String, query: [(String, String)] = [], body: Body?, as answer: Answer.Type,
        credentials: StaffCredentials? = nil, context: CallContext, isSignIn: Bool = false
    ) async throws(BackendError) -> Answer {
        let url = try makeURL(path, query: query)
        let bodyData: Data?
        do {
            bodyData = try body.map { try BackendJSON.encoder().encode($0) }
        } catch {
            throw .unexpectedAnswer(status: 0)
        }
        var token = await credentials?.accessToken
        if let credentials, let current = token, AccessTokenExpiry.expiresSoon(current) {
            // Refreshed first rather than after a 401: the refused call would spend a read
            // (or one of the 10 writes). An ended session ends the call; any other failure
            // to refresh lets the call go as it was.
            do {
                token = try await credentials.replace(rejected: current) { [self] refreshToken async throws(BackendError) in
                    try await refreshAccessToken(refreshToken, context: context)
                }
            } catch .sessionExpired {
                throw .sessionExpired
            } catch {
                token = current
            }
        }
        var refreshed = false
        while true {
            let answer = try await send(method, url: url, path: path, body: bodyData, token: token, context: context)
            if answer.status == 401, let credentials, let rejected = token, !refreshed {
                refreshed = true
                token = try await credentials.replace(rejected: rejected) { [self] refreshToken async throws(BackendError) in
                    try await refreshAccessToken(refreshToken, context: context)
                }
                continue
            }
            guard (200..<300).contains(answer.status) else {
                let error = BackendErrorMapping.error(
                    status: answer.status, contentType: answer.contentType, body: answer.body, isSignIn: isSignIn)
                if answer.status == 429, case .rateLimited(let seconds) = error, let gate = configuration.gate {
                    // Every caller in every process sharing the budget waits as long as the backend said.
                    await gate.backendLimited(BackendEndpoint(method: method, path: path), until: Date().addingTimeInterval(Double(seconds)))
                }
                throw error
            }
            do {
                return try BackendJSON.decoder().decode(Answer.self, from: answer.body)
            } catch {
                logger.warning(
                    "backend answer did not decode",
                    metadata: ["path": "\(path)", "request.id": "\(context.requestID)", "type": "\(Answer.self)"])
                let isJSON = answer.contentType?.lowercased().hasPrefix("application/json") ?? false
                throw isJSON ? .unexpectedAnswer(status: answer.status) : .unavailable(.notJSON(status: answer.status))
            }
        }
    }

    private struct Answer {
        let status: Int
        let contentType: String?
        let body: Data
    }

    /// One HTTP exchange, retried when it is a read that failed in transit or met 502/503/504.
    /// Every attempt is first admitted by the gate (counted in the budget); one it refuses is
    /// not made: the last answer stands, or with none yet the call waits as for a 429.
    private func send(
        _ method: NIOHTTP1.HTTPMethod, url: String, path: String, body: Data?, token: String?, context: CallContext
    ) async throws(BackendError) -> Answer {
        let policy = method == .GET ? configuration.readRetry : .none
        let clock = ContinuousClock()
        let started = clock.now
        let endpoint = BackendEndpoint(method: method, path: path)
        var attempt = 1
        var last: Result<Answer, BackendError>?
        while true {
            if let gate = configuration.gate, let until = await gate.admit(endpoint, budget: context.budget) {
                if let last { return try last.get() }
                throw .rateLimited(retryAfterSeconds: max(1, Int(until.timeIntervalSinceNow.rounded(.up))))
            }
            let outcome = await exchange(method, url: url, path: path, body: body, token: token, context: context, attempt: attempt)
            last = outcome
            let retryable: Bool
            switch outcome {
            case .success(let answer): retryable = [502, 503, 504].contains(answer.status)
            case .failure: retryable = true
            }
            let delay = policy.delay(beforeRetry: attempt)
            guard retryable, attempt < policy.maxAttempts, clock.now - started + delay < policy.totalBudget else {
                return try outcome.get()
            }
            try? await Task.sleep(for: delay)
            attempt += 1
        }
    }

    private func exchange(
        _ method: NIOHTTP1.HTTPMethod, url: String, path: String, body: Data?, token: String?, context: CallContext, attempt: Int
    ) async -> Result<Answer, BackendError> {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "X-Request-ID", value: context.requestID)
        // Moderation lists come marked public for 300 s: say plainly that no cache may answer.
        request.headers.add(name: "Cache-Control", value: "no-cache, no-store, max-age=0")
        request.headers.add(name: "Pragma", value: "no-cache")
        if let forwardedFor = context.forwardedFor { request.headers.add(name: "X-Forwarded-For", value: forwardedFor) }
        if let token { request.headers.add(name: "Authorization", value: "Bearer " + token) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let clock = ContinuousClock()
        let started = clock.now
        var metadata: Logger.Metadata = [
            "method": "\(method.rawValue)", "path": "\(path)", "request.id": "\(context.requestID)", "attempt": "\(attempt)",
        ]
        do {
            let response = try await http.execute(request, timeout: .init(configuration.requestTimeout))
            let bytes = try await response.body.collect(upTo: configuration.maxResponseBytes)
            let duration = clock.now - started
            metadata["status"] = "\(response.status.code)"
            metadata["duration_ms"] = "\(duration.milliseconds)"
            logger.debug("backend call", metadata: metadata)
            configuration.observer?.backendCallFinished(
                BackendCallRecord(endpoint: BackendEndpoint(method: method, path: path), status: Int(response.status.code), duration: duration))
            return .success(
                Answer(
                    status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"), body: Data(bytes.readableBytesView)))
        } catch {
            let failure = Self.transportFailure(error)
            metadata["error"] = "\(failure == .unavailable(.timedOut) ? "timeout" : "connection")"
            let duration = clock.now - started
            metadata["duration_ms"] = "\(duration.milliseconds)"
            logger.debug("backend call failed", metadata: metadata)
            configuration.observer?.backendCallFinished(
                BackendCallRecord(endpoint: BackendEndpoint(method: method, path: path), status: nil, duration: duration))
            return .failure(failure)
        }
    }

    private static func transportFailure(_ error: any Error) -> BackendError {
        if let error = error as? HTTPClientError,
            [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error)
        {
            return .unavailable(.timedOut)
        }
        if error is NIOCore.ChannelError, case .connectTimeout = error as? NIOCore.ChannelError {
            return .unavailable(.timedOut)
        }
        // Refused on every address tried: nothing was sent, so a write cannot have applied.
        if let error = error as? NIOConnectionError, !error.connectionErrors.isEmpty,
            error.connectionErrors.allSatisfy({ ($0.error as? IOError)?.errnoCode == ECONNREFUSED })
        {
            return .unavailable(.connectionRefused)
        }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED { return .unavailable(.connectionRefused) }
        return .unavailable(.connectionFailed)
    }

    // MARK: URLs

    private func makeURL(_ path: String, query: [(String, String)]) throws(BackendError) -> String {
        guard var components = URLComponents(url: configuration.baseURL, resolvingAgainstBaseURL: false) else {
            throw .unavailable(.connectionFailed)
        }
        components.percentEncodedPath += path
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        // URLComponents leaves "+" alone in queries; the backend would read it as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.string else { throw .unavailable(.connectionFailed) }
        return url
    }

    private static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove("/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func paging(_ page: Page) -> [(String, String)] {
        [("page", String(page.number)), ("page_size", String(page.size))]
    }

    private static func optional(_ pairs: [(String, String?)]) -> [(String, String)] {
        pairs.compactMap { name, value in value.flatMap { $0.isEmpty ? nil : (name, $0) } }
    }
}
