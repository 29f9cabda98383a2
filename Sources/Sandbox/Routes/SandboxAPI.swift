import BookCornersAPI
import Foundation
import HTTPTypes
import Hummingbird
import ModerationVocabulary

/// The endpoints' behaviour, in the order the real backend checks things:
/// authentication (401), validation (422), staff (403), rate limit (429), then the work (404).
struct SandboxAPI: Sendable {
    let store: SandboxStore
    let signer: TokenSigner
    let limiter: RateLimiter?
    let maxBodyBytes: Int

    /// The backend marks moderation lists public for five minutes (see backend-api.md).
    private static let moderationListCaching = "public, max-age=300, s-maxage=300"

    func handle(_ call: SandboxCall) async throws -> Response {
        switch call.endpoint {
        case .login: return try await login(call)
        case .refresh: return try await refresh(call)
        case .me:
            let user = try authenticate(call)
            try await admit(call)
            return try SandboxResponse.json(
                Account(id: user.id, username: user.username, email: user.email, isSocialOnly: user.isSocialOnly, isStaff: user.isStaff))
        case .summary:
            try await requireStaff(call)
            return try SandboxResponse.json(try store.summary())
        case .moderationLibraries:
            return try await moderationLibraries(call, fixedStatus: nil)
        case .pendingLibraries:
            return try await moderationLibraries(call, fixedStatus: .pending)
        case .moderationLibrary(let slug):
            if call.request.method == .patch { return try await moderateLibrary(call, slug: slug) }
            try await requireStaff(call)
            guard let library = try store.moderationLibrary(slug: slug) else { throw SandboxError.notFound }
            return try SandboxResponse.json(Wire(value: library))
        case .reports:
            var query = QueryReader(call.request.uri)
            let status = query.choice("status", ["all"] + ReportStatus.allCases.map(\.rawValue), default: "all")
            let reason = query.choice("reason", ["all"] + ReportReason.allCases.map(\.rawValue), default: "all")
            let (page, size) = Self.paging(&query)
            try authenticate(call, validating: query)
            try await requireStaff(call)
            let list = try store.reports(
                status: ReportStatus(rawValue: status), reason: reason == "all" ? nil : reason, page: page, pageSize: size)
            return try SandboxResponse.json(WireList(list.items, list.pagination))
        case .report(let id):
            return try await moderateReport(call, id: id)
        case .photos:
            var query = QueryReader(call.request.uri)
            let status = query.choice("status", ["all"] + LibraryStatus.allCases.map(\.rawValue), default: "all")
            let (page, size) = Self.paging(&query)
            try authenticate(call, validating: query)
            try await requireStaff(call)
            let list = try store.photos(status: PhotoStatus(rawValue: status), page: page, pageSize: size)
            return try SandboxResponse.json(WireList(list.items, list.pagination))
        case .photo(let id):
            return try await moderatePhoto(call, id: id)
        case .publicLibraries:
            return try await publicLibraries(call)
        case .publicLibrary(let slug):
            try await admit(call)
            guard let library = try store.moderationLibrary(slug: slug), library.moderationStatus == .approved else {
                throw SandboxError.notFound
            }
            let publicView = PublicLibrary(
                id: library.id, slug: library.slug, name: library.name, description: library.description,
                photoUrl: library.photoUrl, thumbnailUrl: library.thumbnailUrl, lat: library.lat, lng: library.lng,
                address: library.address, city: library.city, country: library.country, postalCode: library.postalCode,
                wheelchairAccessible: library.wheelchairAccessible, capacity: library.capacity, isIndoor: library.isIndoor,
                isLit: library.isLit, website: library.website, contact: library.contact, source: library.source,
                _operator: library._operator, brand: library.brand, createdAt: library.createdAt, isFavourited: false)
            return try SandboxResponse.json(Wire(value: publicView), cacheControl: "public, max-age=300, s-maxage=300")
        case .statistics:
            try await admit(call)
            return try SandboxResponse.json(try store.statistics(), cacheControl: "public, max-age=900, s-maxage=900")
        case .redirect:
            throw SandboxError.notFound
        }
    }

    func media(path: String) throws -> Response {
        guard path.hasSuffix(".png"), try store.mediaExists(path: path) else { return SandboxResponse.htmlNotFound(path: path) }
        return SandboxResponse.png(PlaceholderImage.png(for: path))
    }

    // MARK: Auth

    private func login(_ call: SandboxCall) async throws -> Response {
        let body = try await jsonObject(call)
        var failures: [FieldFailure] = []
        let username = Self.requiredString(body, "username", &failures)
        let password = Self.requiredString(body, "password", &failures)
        guard failures.isEmpty, let username, let password else { throw SandboxError.validation(failures) }
        try await admit(call)
        // The real backend strips the identifier and matches it case-insensitively.
        guard let user = try store.user(usernameOrEmail: username.trimmingCharacters(in: .whitespacesAndNewlines)),
            PasswordHasher.verify(password, salt: user.passwordSalt, hash: user.passwordHash)
        else { throw SandboxError.invalidCredentials }
        return try SandboxResponse.json(
            TokenPair(access: signer.issue(.access, userID: user.id), refresh: signer.issue(.refresh, userID: user.id)))
    }

    private func refresh(_ call: SandboxCall) async throws -> Response {
        let body = try await jsonObject(call)
        var failures: [FieldFailure] = []
        let token = Self.requiredString(body, "refresh", minLength: 20, &failures)
        guard failures.isEmpty, let token else { throw SandboxError.validation(failures) }
        try await admit(call)
        guard let userID = signer.verify(token, as: .refresh), try store.user(id: userID) != nil else {
            throw SandboxError.invalidRefresh
        }
        return try SandboxResponse.json(Components.Schemas.AccessTokenOut(access: signer.issue(.access, userID: userID)))
    }

    /// The caller's account from the bearer token; 401 when missing, invalid or expired.
    /// As django-ninja's `HttpBearer` does, the scheme is matched case-insensitively and an
    /// unknown scheme counts as no token at all.
    @discardableResult
    private func authenticate(_ call: SandboxCall) throws -> UserRecord {
        guard let header = call.request.headers[.authorization] else { throw SandboxError.unauthorized }
        let scheme = header.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else { throw SandboxError.unauthorized }
        switch signer.check(String(header.dropFirst(scheme.count + 1)), as: .access) {
        case .valid(let userID):
            guard let user = try store.user(id: userID) else { throw SandboxError.invalidToken }
            return user
        case .wrongType: throw SandboxError.wrongTokenType
        case .invalid: throw SandboxError.invalidToken
        }
    }

    /// Authentication first, then the query's validation failures.
    private func authenticate(_ call: SandboxCall, validating query: QueryReader) throws {
        try authenticate(call)
        if !query.failures.isEmpty { throw SandboxError.validation(query.failures) }
    }

    private func requireStaff(_ call: SandboxCall) async throws {
        guard try authenticate(call).isStaff else { throw SandboxError.staffRequired }
        try await admit(call)
    }

    private func admit(_ call: SandboxCall) async throws {
        guard let limiter else { return }
        let scope = call.endpoint.scope(call.request.method)
        if let retryAfter = await limiter.admit(client: call.client, endpoint: scope.name, kind: scope.kind) {
            throw SandboxError.rateLimited(retryAfter: retryAfter, isLogin: scope.kind == .login)
        }
    }

    // MARK: Moderation

    private func moderationLibraries(_ call: SandboxCall, fixedStatus: LibraryStatus?) async throws -> Response {
        var query = QueryReader(call.request.uri)
        // The pending list validates `status` too, then ignores it.
        let requested = query.choice("status", ["all"] + LibraryStatus.allCases.map(\.rawValue), default: "all")
        // "all" is no status: every status.
        let status = fixedStatus ?? LibraryStatus(rawValue: requested)
        let text = query.string("q", maxLength: 200)
        let country = query.string("country", maxLength: 2)
        let source = query.string("source", maxLength: 100)
        let (page, size) = Self.paging(&query)
        try authenticate(call, validating: query)
        try await requireStaff(call)
        let list = try store.moderationLibraries(
            ModerationLibraryQuery(
                status: status, text: text, country: country, source: source, page: page, pageSize: size))
        return try SandboxResponse.json(
            WireList(list.items, list.pagination), cacheControl: fixedStatus == nil ? Self.moderationListCaching : nil)
    }

    private func moderateLibrary(_ call: SandboxCall, slug: String) async throws -> Response {
        try authenticate(call)
        let body = try await jsonObject(call)
        var failures: [FieldFailure] = []
        let status = Self.requiredChoice(body, "status", LibraryStatus.allCases.map(\.rawValue), &failures).flatMap(LibraryStatus.init(rawValue:))
        var reason = ""
        switch body["rejection_reason"] {
        case nil: break
        // Length is checked before trimming, in characters as Python counts them.
        case .string(let text)? where text.unicodeScalars.count <= 2000: reason = text.trimmingCharacters(in: .whitespacesAndNewlines)
        case .string?:
            failures.append(
                FieldFailure(
                    type: "string_too_long", loc: ["body", "payload", "rejection_reason"],
                    msg: "String should have at most 2000 characters", ctx: ["max_length": .int(2000)]))
        case _?:
            failures.append(FieldFailure(type: "string_type", loc: ["body", "payload", "rejection_reason"], msg: "Input should be a valid string"))
        }
        guard failures.isEmpty, let status else { throw SandboxError.validation(failures) }
        try await requireStaff(call)
        guard let library = try store.moderateLibrary(slug: slug, status: status, rejectionReason: reason) else {
            throw SandboxError.notFound
        }
        return try SandboxResponse.json(Wire(value: library))
    }

    private func moderateReport(_ call: SandboxCall, id: String) async throws -> Response {
        try authenticate(call)
        let reportID = try Self.integerPathParameter(id, name: "report_id")
        let body = try await jsonObject(call)
        var failures: [FieldFailure] = []
        let status = Self.requiredChoice(body, "status", ReportStatus.allCases.map(\.rawValue), &failures).flatMap(ReportStatus.init(rawValue:))
        guard failures.isEmpty, let status else { throw SandboxError.validation(failures) }
        try await requireStaff(call)
        guard let reportID, let report = try store.moderateReport(id: reportID, status: status) else { throw SandboxError.notFound }
        return try SandboxResponse.json(Wire(value: report))
    }

    private func moderatePhoto(_ call: SandboxCall, id: String) async throws -> Response {
        try authenticate(call)
        let photoID = try Self.integerPathParameter(id, name: "photo_id")
        let body = try await jsonObject(call)
        var failures: [FieldFailure] = []
        let status = Self.requiredChoice(body, "status", PhotoStatus.allCases.map(\.rawValue), &failures).flatMap(PhotoStatus.init(rawValue:))
        guard failures.isEmpty, let status else { throw SandboxError.validation(failures) }
        try await requireStaff(call)
        guard let photoID, let photo = try store.moderatePhoto(id: photoID, status: status) else { throw SandboxError.notFound }
        return try SandboxResponse.json(Wire(value: photo))
    }

    // MARK: Public

    private func publicLibraries(_ call: SandboxCall) async throws -> Response {
        var query = QueryReader(call.request.uri)
        let text = query.string("q", maxLength: 200)
        let search = query.string("search", maxLength: 200)
        let city = query.string("city", maxLength: 100)
        let country = query.string("country", maxLength: 2)
        let postalCode = query.string("postal_code", maxLength: 20)
        let lat = query.number("lat", in: -90...90)
        let lng = query.number("lng", in: -180...180)
        let radius = query.optionalInteger("radius_km", in: 1...100)
        let hasPhoto = query.boolean("has_photo")
        let (page, size) = Self.paging(&query)
        var near: PublicLibraryQuery.Near?
        switch (lat, lng, radius) {
        case let (lat?, lng?, radius?): near = .init(lat: lat, lng: lng, radiusKm: radius)
        case (nil, nil, nil): break
        default:
            if query.failures.isEmpty {
                query.fail("radius_km", "value_error", "Value error, lat, lng and radius_km must be provided together")
            }
        }
        if !query.failures.isEmpty { throw SandboxError.validation(query.failures) }
        try await admit(call)
        let list = try store.publicLibraries(
            PublicLibraryQuery(
                text: text, search: search, city: city, country: country, postalCode: postalCode, hasPhoto: hasPhoto,
                near: near, page: page, pageSize: size))
        return try SandboxResponse.json(WireList(list.items, list.pagination), cacheControl: "public, max-age=120, s-maxage=120")
    }

    // MARK: Input

    private static func paging(_ query: inout QueryReader) -> (Int, Int) {
        (query.integer("page", in: 1...1000, default: 1), query.integer("page_size", in: 1...50, default: 20))
    }

    /// The body as a JSON object; too large is 413, unparsable (bad JSON, invalid UTF-8) 400,
    /// none at all a 422 (`missing` payload), and a body that is not an object 422. An array
    /// reads as an object without fields, so each required field is reported `missing`, as
    /// the real backend does.
    private func jsonObject(_ call: SandboxCall) async throws -> [String: JSONValue] {
        var request = call.request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maxBodyBytes)
        } catch {
            throw SandboxError.bodyTooLarge
        }
        guard buffer.readableBytes > 0 else {
            throw SandboxError.validation([FieldFailure(type: "missing", loc: ["body", "payload"], msg: "Field required")])
        }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(buffer: buffer)) else {
            throw SandboxError.unparsableBody
        }
        switch value {
        case .object(let object): return object
        case .array: return [:]
        default:
            throw SandboxError.validation([
                FieldFailure(
                    type: "model_attributes_type", loc: ["body", "payload"], msg: "Input should be a valid dictionary or object to extract fields from")
            ])
        }
    }

    private static func requiredString(
        _ body: [String: JSONValue], _ name: String, minLength: Int = 0, _ failures: inout [FieldFailure]
    ) -> String? {
        switch body[name] {
        case .string(let value)? where value.unicodeScalars.count < minLength:
            let unit = minLength == 1 ? "character" : "characters"
            failures.append(
                FieldFailure(
                    type: "string_too_short", loc: ["body", "payload", name], msg: "String should have at least \(minLength) \(unit)",
                    ctx: ["min_length": .int(minLength)]))
        case .string(let value)?: return value
        case nil: failures.append(FieldFailure(type: "missing", loc: ["body", "payload", name], msg: "Field required"))
        case _?: failures.append(FieldFailure(type: "string_type", loc: ["body", "payload", name], msg: "Input should be a valid string"))
        }
        return nil
    }

    private static func requiredChoice(
        _ body: [String: JSONValue], _ name: String, _ allowed: [String], _ failures: inout [FieldFailure]
    ) -> String? {
        if case .string(let value)? = body[name], allowed.contains(value) { return value }
        if body[name] == nil {
            failures.append(FieldFailure(type: "missing", loc: ["body", "payload", name], msg: "Field required"))
        } else {
            let expected = QueryReader.expected(allowed)
            failures.append(
                FieldFailure(
                    type: "enum", loc: ["body", "payload", name], msg: "Input should be \(expected)", ctx: ["expected": .text(expected)]))
        }
        return nil
    }

    /// A non-integer report or photo id is a 422, not a 404 (as on the real backend). An
    /// integer too large for any row is valid there (Python's integers are unbounded) and
    /// ends in a 404: `nil` here.
    private static func integerPathParameter(_ text: String, name: String) throws -> Int? {
        switch LaxInteger(text) {
        case .value(let value): return value
        case .outOfRange: return nil
        case .invalid:
            throw SandboxError.validation([
                FieldFailure(type: "int_parsing", loc: ["path", name], msg: "Input should be a valid integer, unable to parse string as an integer")
            ])
        }
    }
}
