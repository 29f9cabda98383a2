import BookCornersAPI
import Foundation

/// A short-lived memory of backend answers, shared by every staff member, so that several
/// people browsing stay well inside the backend's 60 reads per 5 minutes per endpoint.
/// Concurrent misses for one key share one backend call. When a refresh fails, the last
/// good answer is served with the reason, so pages still render.
actor BackendReadCache {
    private struct Entry {
        let value: any Sendable
        let fetchedAt: Date
    }

    private let lifetime: TimeInterval
    /// How old a kept answer may be to stand in when the backend fails.
    private let staleLimit: TimeInterval
    private var entries: [String: Entry] = [:]
    private var inFlight: [String: Task<Entry, any Error>] = [:]

    init(lifetime: TimeInterval, staleLimit: TimeInterval = 15 * 60) {
        self.lifetime = lifetime
        self.staleLimit = staleLimit
    }

    func value<Value: Sendable>(
        _ key: String, now: Date = Date(), load: @escaping @Sendable () async throws(BackendError) -> Value
    ) async throws(BackendError) -> Cached<Value> {
        if let entry = entries[key], now.timeIntervalSince(entry.fetchedAt) < lifetime, let value = entry.value as? Value {
            return Cached(value: value, fetchedAt: entry.fetchedAt, problem: nil)
        }
        let task: Task<Entry, any Error>
        if let running = inFlight[key] {
            task = running
        } else {
            task = Task { Entry(value: try await load(), fetchedAt: Date()) }
            inFlight[key] = task
        }
        do {
            let entry = try await task.value
            if inFlight[key] == task {
                inFlight[key] = nil
                store(entry, for: key)
            }
            guard let value = entry.value as? Value else { throw BackendError.unexpectedAnswer(status: 0) }
            return Cached(value: value, fetchedAt: entry.fetchedAt, problem: nil)
        } catch {
            if inFlight[key] == task { inFlight[key] = nil }
            let backendError = (error as? BackendError) ?? .unavailable(.connectionFailed)
            if Self.canServeStale(backendError), let entry = entries[key], now.timeIntervalSince(entry.fetchedAt) < staleLimit,
                let value = entry.value as? Value
            {
                return Cached(value: value, fetchedAt: entry.fetchedAt, problem: backendError)
            }
            throw backendError
        }
    }

    /// Forgets every answer whose key starts with `prefix` (a decision changed them). Loads
    /// already under way for those keys may have read the old state: they are forgotten
    /// too, so their answers go to the callers that asked but are never stored, and the
    /// next caller starts a fresh load.
    func invalidate(prefix: String) {
        entries = entries.filter { !$0.key.hasPrefix(prefix) }
        inFlight = inFlight.filter { !$0.key.hasPrefix(prefix) }
    }

    private func store(_ entry: Entry, for key: String) {
        if entries.count > 1_000 {
            let cutoff = Date().addingTimeInterval(-staleLimit)
            entries = entries.filter { $0.value.fetchedAt > cutoff }
        }
        entries[key] = entry
    }

    /// Only outages stand in for fresh data; "not found" or "session expired" must show.
    private static func canServeStale(_ error: BackendError) -> Bool {
        switch error {
        case .unavailable, .rateLimited: true
        default: false
        }
    }
}

/// A backend answer and how fresh it is; `problem` says why an older answer is shown.
struct Cached<Value: Sendable>: Sendable {
    let value: Value
    let fetchedAt: Date
    let problem: BackendError?

    /// The same answer, its value transformed.
    func map<Other: Sendable>(_ transform: (Value) -> Other) -> Cached<Other> {
        Cached<Other>(value: transform(value), fetchedAt: fetchedAt, problem: problem)
    }
}
