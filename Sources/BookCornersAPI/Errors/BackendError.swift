import Foundation

/// Everything that can go wrong when the console calls the backend, each with a sentence
/// a staff member can act on. Backend-internal text never reaches these messages.
public enum BackendError: Error, Equatable, Sendable {
    /// Sign-in with a wrong username, e-mail or password.
    case invalidCredentials
    /// The account is not staff (403).
    case notStaff
    /// No such library, report or photo (JSON 404).
    case notFound
    /// The backend refused the input (422), field by field.
    case validation([FieldError])
    /// Too many requests (429); try again after this many seconds.
    case rateLimited(retryAfterSeconds: Int)
    /// The tokens are no longer valid, even after a refresh: sign in again.
    case sessionExpired
    /// The backend could not be reached or did not answer usefully.
    case unavailable(UnavailableReason)
    /// An answer the client does not understand (an undocumented status, or a body that
    /// does not match the API document).
    case unexpectedAnswer(status: Int)

    /// Why the backend counts as unavailable.
    public enum UnavailableReason: Equatable, Sendable {
        /// Nothing listens there: the request was never sent.
        case connectionRefused
        /// The connection failed or dropped, perhaps after the request went out.
        case connectionFailed
        case timedOut
        case serverError(status: Int)
        case notJSON(status: Int)
    }

    /// One field the backend rejected: where (`body.payload.status`) and why.
    public struct FieldError: Equatable, Sendable {
        public let location: String
        public let message: String
        public let type: String

        public init(location: String, message: String, type: String) {
            self.location = location
            self.message = message
            self.type = type
        }
    }

    /// What staff read.
    public var staffMessage: String {
        switch self {
        case .invalidCredentials:
            "That username or e-mail and password do not match a Book Corners account. Check them and try again."
        case .notStaff:
            "This account is not a staff account. Only Book Corners staff can use the moderation console."
        case .notFound:
            "That item no longer exists at Book Corners. It may have been removed; go back to the queue."
        case .validation(let errors):
            "Book Corners did not accept this: "
                + (errors.isEmpty ? "the input was invalid." : errors.map { "\($0.location): \($0.message)" }.joined(separator: "; "))
                + ". Correct it and try again."
        case .rateLimited(let seconds):
            "Book Corners is limiting how fast we can send requests. Try again in \(BackendError.duration(seconds)); nothing was lost."
        case .sessionExpired:
            "Your Book Corners session has expired. Sign in again to continue."
        case .unavailable(.timedOut):
            "Book Corners did not answer in time. Try again in a minute; if it keeps happening, the backend may be overloaded."
        case .unavailable(.connectionRefused), .unavailable(.connectionFailed):
            "Book Corners cannot be reached right now. Try again in a minute; if it keeps happening, tell whoever runs the backend."
        case .unavailable(.serverError(let status)):
            "Book Corners had an internal problem (HTTP \(status)). Try again in a minute."
        case .unavailable(.notJSON(let status)):
            "Book Corners answered with a page instead of data (HTTP \(status)); it may be under maintenance. Try again later."
        case .unexpectedAnswer(let status):
            "Book Corners gave an answer the console does not understand (HTTP \(status)). Try again; if it persists, report it."
        }
    }

    /// Whether a write that failed this way may still have taken effect at the backend.
    /// An answer from the backend itself that refuses (4xx, 429) proves it did not; so does
    /// a proxy's 502 or a refused connection (the backend was never reached). A timeout, a dropped connection, an
    /// answer we could not read or another 5xx leave it unknown.
    public var writeMayHaveApplied: Bool {
        switch self {
        case .invalidCredentials, .notStaff, .notFound, .validation, .rateLimited, .sessionExpired, .unavailable(.connectionRefused): false
        case .unavailable(.serverError(let status)), .unavailable(.notJSON(let status)): !(400..<500).contains(status) && status != 502
        case .unavailable(.timedOut), .unavailable(.connectionFailed), .unexpectedAnswer: true
        }
    }

    /// Whether the backend gave no usable answer (down, timed out, a server error or an
    /// answer we could not read), as opposed to one that refuses or limits us.
    public var meansNoAnswer: Bool {
        switch self {
        case .unavailable, .unexpectedAnswer: true
        case .invalidCredentials, .notStaff, .notFound, .validation, .rateLimited, .sessionExpired: false
        }
    }

    /// "45 s", "2 min 5 s".
    public static func duration(_ seconds: Int) -> String {
        seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min" + (seconds % 60 == 0 ? "" : " \(seconds % 60) s")
    }

    /// Seconds to the next multiple of the backend's 300-second rate-limit window.
    public static func secondsToNextWindow(now: Date = Date(), window: Int = 300) -> Int {
        let seconds = Int(now.timeIntervalSince1970)
        return window - seconds % window
    }
}

extension BackendError: LocalizedError {
    public var errorDescription: String? { staffMessage }
}
