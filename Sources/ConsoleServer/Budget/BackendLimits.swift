import Foundation

/// What the backend allows the console per rate-limit scope and window (backend-api.md): the
/// limits `BackendBudget` keeps every console process on one database within, together.
public struct BackendLimits: Sendable, Equatable {
    /// The backend's window in seconds; windows start at multiples of it since the epoch.
    public var windowSeconds: Int
    /// Reads per scope and window.
    public var reads: Int
    /// Writes (decisions) per scope and window.
    public var writes: Int
    /// Sign-ins per window, for the whole console (Book Corners counts it as one client).
    public var signIns: Int
    /// Of `signIns`, the ones kept for browsers that signed in here before (a remembered-browser
    /// cookie for the account typed): strangers' failed guesses can never spend them.
    public var rememberedSignIns: Int
    /// Sign-ins each address (an IPv6 /64) may spend of the rest per window.
    public var signInsPerAddress: Int
    public var refreshes: Int
    /// The share of `reads` spent on reads no other share covers (`auth/me`): the rest is other clients' margin.
    public var readShare: Double

    public init(
        windowSeconds: Int = 300, reads: Int = 60, writes: Int = 10, signIns: Int = 10, rememberedSignIns: Int? = nil, signInsPerAddress: Int = 2,
        refreshes: Int = 15, readShare: Double = 0.5
    ) {
        self.windowSeconds = windowSeconds
        self.reads = reads
        self.writes = writes
        self.signIns = signIns
        // Six of Book Corners' ten by default: the rest serve first sign-ins, two per address.
        self.rememberedSignIns = min(signIns - 1, max(0, rememberedSignIns ?? Int((Double(signIns) * 0.6).rounded(.down))))
        self.signInsPerAddress = signInsPerAddress
        self.refreshes = refreshes
        self.readShare = readShare
    }

    /// "10 changes per 5 minutes": the decisions Book Corners takes from the console, in words.
    var writeRate: String {
        let minutes = windowSeconds % 60 == 0 ? (windowSeconds / 60 == 1 ? "minute" : "\(windowSeconds / 60) minutes") : "\(windowSeconds) seconds"
        return "\(writes) \(writes == 1 ? "change" : "changes") per \(minutes)"
    }

    /// Reads per scope and window for calls no other share covers.
    var otherReads: Int { max(0, Int((Double(reads) * readShare).rounded(.down))) }
}
