import Foundation
import OpenAPIRuntime

/// Turns an unsuccessful answer into a `BackendError`, from its status and body only.
enum BackendErrorMapping {
    static func error(status: Int, contentType: String?, body: Data, isSignIn: Bool, now: Date = Date()) -> BackendError {
        guard let errorBody = decodeErrorBody(contentType: contentType, body: body) else {
            return status >= 500 ? .unavailable(.serverError(status: status)) : .unavailable(.notJSON(status: status))
        }
        switch status {
        case 401: return isSignIn ? .invalidCredentials : .sessionExpired
        case 403: return .notStaff
        case 404: return .notFound
        case 422: return .validation(fieldErrors(errorBody))
        case 429:
            let retryAfter = intValue(errorBody.details?.additionalProperties.value["retry_after"] ?? nil)
            return .rateLimited(retryAfterSeconds: max(1, retryAfter ?? BackendError.secondsToNextWindow(now: now)))
        case 500...: return .unavailable(.serverError(status: status))
        default: return .unexpectedAnswer(status: status)
        }
    }

    /// The error body, when the answer is JSON in the backend's error shape.
    static func decodeErrorBody(contentType: String?, body: Data) -> ErrorBody? {
        guard let contentType, contentType.lowercased().hasPrefix("application/json") else { return nil }
        return try? BackendJSON.decoder().decode(ErrorBody.self, from: body)
    }

    private static func fieldErrors(_ body: ErrorBody) -> [BackendError.FieldError] {
        guard let errors = body.details?.additionalProperties.value["errors"] as? [(any Sendable)?] else { return [] }
        return errors.compactMap { entry in
            guard let error = entry as? [String: (any Sendable)?] else { return nil }
            let location = (error["loc"] as? [(any Sendable)?])?.compactMap { $0.map { "\($0)" } }.joined(separator: ".") ?? ""
            return BackendError.FieldError(
                location: location, message: (error["msg"] ?? nil) as? String ?? "invalid", type: (error["type"] ?? nil) as? String ?? "")
        }
    }

    private static func intValue(_ value: (any Sendable)?) -> Int? {
        switch value {
        case let number as Int: number
        case let number as Double: Int(number.rounded(.up))
        case let text as String: Int(text)
        default: nil
        }
    }
}
