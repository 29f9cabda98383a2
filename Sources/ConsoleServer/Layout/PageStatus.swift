import BookCornersAPI
import Foundation

/// How fresh a page's backend data is, and what went wrong fetching it.
struct PageStatus {
    private(set) var oldestFetch: Date?
    private(set) var problem: BackendError?

    /// Uses a cached answer, remembering its age and any problem behind it.
    mutating func take<Value>(_ cached: Cached<Value>) -> Value {
        if oldestFetch.map({ cached.fetchedAt < $0 }) ?? true { oldestFetch = cached.fetchedAt }
        if let problem = cached.problem { self.problem = problem }
        return cached.value
    }

    /// Runs one backend read, `try await status.attempt(await backend.summary())`: an outage
    /// or rate limit becomes a banner and `nil`, anything else is thrown.
    mutating func attempt<Value>(_ load: @autoclosure () async throws(BackendError) -> Cached<Value>) async throws(BackendError) -> Value? {
        do {
            return take(try await load())
        } catch {
            try absorb(error)
            return nil
        }
    }

    /// Keeps an outage or rate limit for the banner; rethrows any other error.
    mutating func absorb(_ error: BackendError) throws(BackendError) {
        switch error {
        case .unavailable, .rateLimited, .unexpectedAnswer:
            problem = error
        default:
            throw error
        }
    }

    var banner: String? {
        guard let problem else { return nil }
        if let oldestFetch, Date().timeIntervalSince(oldestFetch) > 10 {
            return problem.staffMessage + " Showing what we had \(TimeText.age(of: oldestFetch))."
        }
        return problem.staffMessage
    }

    var freshness: String? {
        oldestFetch.map { "Data from Book Corners, \(TimeText.age(of: $0))" }
    }
}
