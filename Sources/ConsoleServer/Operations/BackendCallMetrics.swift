import BookCornersAPI
import CoreMetrics
import Foundation
import Synchronization

/// Watches every call the console's backend clients make: counts and times them for
/// `/metrics`, keeps how much of each scope's budget this window has used and since when
/// writes have been held by 429s, and remembers when the backend last answered (readiness).
public final class BackendCallMetrics: BackendCallObserver {
    /// The backend's rate-limit window and its limits per kind (backend-api.md).
    public struct Limits: Sendable {
        public var windowSeconds: Int
        public var perKind: [BackendEndpoint.Kind: Int]

        public init(windowSeconds: Int = 300, reads: Int = 60, writes: Int = 10, signIns: Int = 10, refreshes: Int = 15) {
            self.windowSeconds = windowSeconds
            self.perKind = [.read: reads, .write: writes, .signIn: signIns, .refresh: refreshes]
        }
    }

    private struct State {
        var windowIndex = 0
        var usedThisWindow: [BackendEndpoint: Int] = [:]
        /// Per write scope: when its current run of 429s began (nil once a write got through).
        var writeHeldSince: [String: Date] = [:]
        var lastAnswerAt: Date?
    }

    public let limits: Limits
    private let state = Mutex(State())
    private let now: @Sendable () -> Date

    public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.limits = limits
        self.now = now
    }

    public func backendCallFinished(_ call: BackendCallRecord) {
        let endpoint = call.endpoint
        let status = call.status.map(String.init) ?? "none"
        Counter(
            label: "console_backend_requests_total",
            dimensions: [
                ("scope", endpoint.scope), ("kind", endpoint.kind.rawValue), ("status", status),
            ]
        ).increment()
        CoreMetrics.Timer(label: "console_backend_request_duration_seconds", dimensions: [("scope", endpoint.scope)])
            .recordNanoseconds(Int64(call.duration.components.seconds) * 1_000_000_000 + call.duration.components.attoseconds / 1_000_000_000)
        if call.status == 429 {
            Counter(label: "console_backend_rate_limited_total", dimensions: [("scope", endpoint.scope), ("kind", endpoint.kind.rawValue)])
                .increment()
        }
        let at = now()
        state.withLock { state in
            let index = windowIndex(at)
            if index != state.windowIndex {
                state.windowIndex = index
                state.usedThisWindow = [:]
            }
            // The backend counts every call that reaches it, refused ones included.
            if call.status != nil { state.usedThisWindow[endpoint, default: 0] += 1 }
            if let code = call.status, code < 500 { state.lastAnswerAt = at }
            if endpoint.kind == .write, let code = call.status {
                if code == 429 {
                    if state.writeHeldSince[endpoint.scope] == nil { state.writeHeldSince[endpoint.scope] = at }
                } else if code < 500 {
                    state.writeHeldSince[endpoint.scope] = nil
                }
            }
        }
    }

    /// When the backend last answered anything but a 5xx; nil when never, in this process.
    public var lastAnswerAt: Date? {
        state.withLock { $0.lastAnswerAt }
    }

    /// This window's calls per endpoint, the window's limits and the write holds, as families.
    func write(into text: inout PrometheusText) {
        let at = now()
        let (used, held) = state.withLock { state -> ([BackendEndpoint: Int], [String: Date]) in
            (state.windowIndex == windowIndex(at) ? state.usedThisWindow : [:], state.writeHeldSince)
        }
        text.family(
            "console_backend_window_calls", .gauge,
            help: "Calls the backend has counted against each scope in its current rate-limit window.",
            samples: used.sorted { ($0.key.scope, $0.key.kind.rawValue) < ($1.key.scope, $1.key.kind.rawValue) }.map {
                ([("scope", $0.key.scope), ("kind", $0.key.kind.rawValue)], Double($0.value))
            })
        text.family(
            "console_backend_window_limit", .gauge, help: "The backend's limit per scope and window, by kind of call.",
            samples: BackendEndpoint.Kind.allCases.map { ([("kind", $0.rawValue)], Double(limits.perKind[$0] ?? 0)) })
        text.family(
            "console_backend_window_seconds_left", .gauge, help: "Seconds until the backend's current rate-limit window ends.",
            value: Double(limits.windowSeconds) - at.timeIntervalSince1970.truncatingRemainder(dividingBy: Double(limits.windowSeconds)))
        text.family(
            "console_backend_write_hold_seconds", .gauge,
            help: "How long writes to each scope have been refused with 429 without one getting through; absent when none is held.",
            samples: held.sorted { $0.key < $1.key }.map { ([("scope", $0.key)], max(0, at.timeIntervalSince($0.value))) })
    }

    private func windowIndex(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970) / max(1, limits.windowSeconds)
    }
}
