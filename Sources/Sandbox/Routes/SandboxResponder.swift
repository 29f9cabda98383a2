import BookCornersAPI
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The sandbox's whole HTTP surface. It dispatches on the exact path rather than through
/// a router because the real backend's path rules matter here: a trailing slash on a
/// moderation path is an HTML 404, a missing one on `libraries/` a 301.
struct SandboxResponder: HTTPResponder {
    typealias Context = SandboxRequestContext

    private static let apiPrefix = "/api/v1/"
    let api: SandboxAPI
    /// Where each API request is noted, when the sandbox was asked to keep a log.
    let requestLog: RequestLog?
    /// The APNs stand-in whose pushes and faults `/apns/…` shows, when one runs beside the sandbox.
    let apnsRoutes: APNsStandInRoutes?

    func respond(to request: Request, context: Context) async throws -> Response {
        let arrived = Date()
        let path = request.uri.path
        let endpoint = Self.endpoint(path: path)
        let client = clientAddress(request, context)
        var response: Response
        do {
            response = try await route(request, path: path, endpoint: endpoint, client: client)
        } catch let error as SandboxError {
            response = SandboxResponse.error(error)
        } catch {
            context.logger.error("sandbox request failed", metadata: ["error": "\(error)"])
            response = SandboxResponse.error(
                SandboxError(status: .internalServerError, message: "Server error.", details: .none))
        }
        DjangoHeaders.add(to: &response)
        context.logger.debug(
            "sandbox", metadata: ["method": "\(request.method)", "path": "\(path)", "status": "\(response.status.code)"])
        if let requestLog, path.hasPrefix(Self.apiPrefix) {
            // A redirect is answered before any budget is counted: it has no scope.
            let scope = endpoint.flatMap { $0.isRedirect ? nil : $0.scope(request.method) }
            await requestLog.append(
                at: arrived, client: client, method: request.method.rawValue, path: request.uri.description,
                scope: scope, status: Int(response.status.code))
        }
        return response
    }

    /// The endpoint an API path names, or nil (media, unknown paths).
    private static func endpoint(path: String) -> Endpoint? {
        guard path.hasPrefix(apiPrefix) else { return nil }
        let segments = path.dropFirst(apiPrefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        return Endpoint(segments: segments)
    }

    private func route(_ request: Request, path: String, endpoint: Endpoint?, client: String) async throws -> Response {
        if let apnsRoutes, path.hasPrefix(APNsStandInRoutes.prefix) {
            return try await apnsRoutes.respond(to: request, path: path)
        }
        if path.hasPrefix(Self.staffAdminPrefix) {
            return try staffAdmin(request, path: path)
        }
        if path.hasPrefix("/media/") {
            guard request.method == .get || request.method == .head else { return SandboxResponse.methodNotAllowed(allow: [.get]) }
            return try api.media(path: path)
        }
        guard let endpoint else { return SandboxResponse.htmlNotFound(path: path) }
        if case .redirect(let target) = endpoint {
            let query = request.uri.query.map { "?" + $0 } ?? ""
            return SandboxResponse.movedPermanently(to: Self.apiPrefix + target + query)
        }
        guard endpoint.methods.contains(request.method) else { return SandboxResponse.methodNotAllowed(allow: endpoint.allowed) }
        return try await api.handle(SandboxCall(request: request, client: client, endpoint: endpoint))
    }

    /// `POST /sandbox/admin/users/<username>/staff?is_staff=false`: what an administrator does
    /// in Book Corners' Django admin, for tests and demos of a colleague removed while signed in.
    private static let staffAdminPrefix = "/sandbox/admin/users/"

    private func staffAdmin(_ request: Request, path: String) throws -> Response {
        let segments = path.dropFirst(Self.staffAdminPrefix.count).split(separator: "/").map(String.init)
        guard request.method == .post else { return SandboxResponse.methodNotAllowed(allow: [.post]) }
        guard segments.count == 2, segments[1] == "staff", let username = segments[0].removingPercentEncoding,
            let value = request.uri.queryParameters["is_staff"].map(String.init), let isStaff = Bool(value)
        else { return SandboxResponse.htmlNotFound(path: path) }
        guard try api.store.setStaff(username: username, isStaff: isStaff) else { return SandboxResponse.htmlNotFound(path: path) }
        return try SandboxResponse.json(["username": username, "is_staff": String(isStaff)])
    }

    /// The rate-limit identity: the first `X-Forwarded-For` address, else the peer's.
    private func clientAddress(_ request: Request, _ context: Context) -> String {
        let forwardedFor = request.headers.first { $0.name.canonicalName == "x-forwarded-for" }?.value
        if let forwarded = forwardedFor?.split(separator: ",").first {
            let trimmed = forwarded.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { return trimmed }
        }
        return context.remoteAddress?.ipAddress ?? "unknown"
    }
}

/// One matched call: the request, who made it, and which endpoint it hit.
struct SandboxCall: Sendable {
    let request: Request
    let client: String
    let endpoint: Endpoint
}

/// Every path the sandbox answers, matched segment by segment.
enum Endpoint: Sendable, Equatable {
    case login, refresh, me
    case summary, moderationLibraries, pendingLibraries, moderationLibrary(slug: String)
    case reports, report(id: String)
    case photos, photo(id: String)
    case publicLibraries, publicLibrary(slug: String), statistics
    case redirect(String)

    init?(segments: [String]) {
        let path = segments.joined(separator: "/")
        switch path {
        case "auth/login": self = .login
        case "auth/refresh": self = .refresh
        case "auth/me": self = .me
        case "libraries/moderation": self = .moderationLibraries
        case "libraries/moderation/summary": self = .summary
        case "libraries/moderation/pending": self = .pendingLibraries
        case "libraries/moderation/reports": self = .reports
        case "libraries/moderation/photos": self = .photos
        case "libraries/": self = .publicLibraries
        case "libraries": self = .redirect("libraries/")
        case "statistics/": self = .statistics
        case "statistics": self = .redirect("statistics/")
        default:
            guard let last = segments.last, !last.isEmpty, !segments.contains("") else { return nil }
            switch Array(segments.dropLast()) {
            case ["libraries", "moderation", "reports"]: self = .report(id: last)
            case ["libraries", "moderation", "photos"]: self = .photo(id: last)
            case ["libraries", "moderation"]: self = .moderationLibrary(slug: last)
            case ["libraries"]: self = .publicLibrary(slug: last)
            default: return nil
            }
        }
    }

    var isRedirect: Bool {
        if case .redirect = self { true } else { false }
    }

    var methods: [HTTPRequest.Method] {
        switch self {
        case .login, .refresh: [.post]
        case .moderationLibrary: [.patch, .get]
        case .report, .photo: [.patch]
        case .redirect: [.get]
        default: [.get]
        }
    }

    /// The methods the real backend lists in `Allow` on a 405: sometimes more than the
    /// sandbox serves (it does not delete accounts, so `DELETE auth/me` is a 405 here).
    var allowed: [HTTPRequest.Method] {
        switch self {
        case .me: [.get, .delete]
        default: methods
        }
    }

    /// The rate-limit scope and budget of this endpoint and method: the real backend's scope
    /// names (backend-api.md), so the two library lists share one budget as they do there.
    func scope(_ method: HTTPRequest.Method) -> (name: String, kind: EndpointKind) {
        switch self {
        case .login: ("api-auth-login", .login)
        case .refresh: ("api-auth-refresh", .refresh)
        case .me: ("api-auth-me", .read)
        case .summary: ("api-moderation-summary", .read)
        case .moderationLibraries, .pendingLibraries: ("api-library-moderation-list", .read)
        case .moderationLibrary:
            method == .patch ? ("api-library-moderation-update", .write) : ("api-library-moderation-detail", .read)
        case .reports: ("api-report-moderation-list", .read)
        case .report: ("api-report-moderation-update", .write)
        case .photos: ("api-photo-moderation-list", .read)
        case .photo: ("api-photo-moderation-update", .write)
        case .publicLibraries: ("api-library-list", .read)
        case .publicLibrary: ("api-library-detail", .read)
        case .statistics: ("api-statistics", .read)
        case .redirect: ("redirect", .read)
        }
    }
}
