import BookCornersAPI
import HTTPTypes

/// One field's validation failure, shaped like pydantic's (`{type, loc, msg, ctx?}`).
struct FieldFailure: Encodable, Sendable {
    let type: String
    let loc: [String]
    let msg: String
    let ctx: [String: CtxValue]?

    init(type: String, loc: [String], msg: String, ctx: [String: CtxValue]? = nil) {
        self.type = type
        self.loc = loc
        self.msg = msg
        self.ctx = ctx
    }

    /// `ctx` holds numbers or strings.
    enum CtxValue: Encodable, Sendable {
        case int(Int)
        case text(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .int(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(loc, forKey: .loc)
        try container.encode(msg, forKey: .msg)
        try container.encodeIfPresent(ctx, forKey: .ctx)
    }

    private enum CodingKeys: String, CodingKey {
        case type, loc, msg, ctx
    }
}

/// An error answer of the sandbox, in the backend's error body `{"message", "details"}`.
struct SandboxError: Error, Sendable {
    enum Details: Sendable {
        case none
        case errors([FieldFailure])
        case retryAfter(Int)
    }

    let status: HTTPResponse.Status
    let message: String
    let details: Details
    /// The real backend sends plain `application/json` (no charset) on 401, 404 and 422.
    var contentType: String {
        [.unauthorized, .notFound, .unprocessableContent].contains(status)
            ? "application/json" : "application/json; charset=utf-8"
    }

    static let unauthorized = SandboxError(status: .unauthorized, message: "Unauthorized", details: .none)
    /// The real backend leaks simplejwt's internal error text for a bad or expired token.
    static let invalidToken = tokenNotValid(because: "Token is invalid or expired")
    /// A refresh token sent as the bearer: the same leaked text, naming the wrong type.
    static let wrongTokenType = tokenNotValid(because: "Token has wrong type")
    static let invalidCredentials = SandboxError(status: .unauthorized, message: "Invalid credentials.", details: .none)
    static let invalidRefresh = SandboxError(status: .unauthorized, message: "Invalid or expired refresh token.", details: .none)
    static let staffRequired = SandboxError(status: .forbidden, message: "Staff access required.", details: .none)
    static let notFound = SandboxError(status: .notFound, message: "Not found.", details: .none)
    static let bodyTooLarge = SandboxError(status: .contentTooLarge, message: "Request body too large.", details: .none)
    static let unparsableBody = SandboxError(status: .badRequest, message: "Cannot parse request body.", details: .none)

    /// simplejwt's `InvalidToken` as `str()` prints it, with the access-token class's reason.
    private static func tokenNotValid(because reason: String) -> SandboxError {
        SandboxError(
            status: .unauthorized,
            message:
                "{'detail': ErrorDetail(string='Given token not valid for any token type', code='token_not_valid'), 'code': ErrorDetail(string='token_not_valid', code='token_not_valid'), 'messages': [{'token_class': ErrorDetail(string='AccessToken', code='token_not_valid'), 'token_type': ErrorDetail(string='access', code='token_not_valid'), 'message': ErrorDetail(string='\(reason)', code='token_not_valid')}]}",
            details: .none)
    }

    static func validation(_ failures: [FieldFailure]) -> SandboxError {
        SandboxError(status: .unprocessableContent, message: "Validation error.", details: .errors(failures))
    }

    static func rateLimited(retryAfter: Int, isLogin: Bool) -> SandboxError {
        isLogin
            ? SandboxError(status: .tooManyRequests, message: "Too many login attempts. Please try again later.", details: .none)
            : SandboxError(
                status: .tooManyRequests, message: "Too many requests. Please try again later.", details: .retryAfter(retryAfter))
    }
}

extension SandboxError: Encodable {
    private enum CodingKeys: String, CodingKey {
        case message, details
    }

    private enum DetailKeys: String, CodingKey {
        case errors
        case retryAfter = "retry_after"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message, forKey: .message)
        switch details {
        case .none:
            try container.encodeNil(forKey: .details)
        case .errors(let failures):
            var nested = container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
            try nested.encode(failures, forKey: .errors)
        case .retryAfter(let seconds):
            var nested = container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
            try nested.encode(seconds, forKey: .retryAfter)
        }
    }
}
