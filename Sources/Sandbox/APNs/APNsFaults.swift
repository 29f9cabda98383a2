import Foundation

/// The faults the stand-in is told to show; counted ones are used up one push at a time.
public actor APNsFaults {
    private var unregistered: Set<String> = []
    private var tooManyRequests = 0
    private var unavailable = 0
    private var delayMilliseconds = 0
    private var expireProviderToken = 0
    /// Token → the host that refuses it as a token of the other environment.
    private var badDeviceTokenHosts: [String: String] = [:]

    public init() {}

    /// Switches on what `settings` names; counts replace the remaining ones.
    public func apply(_ settings: APNsFaultSettings) {
        if let tokens = settings.unregistered { unregistered.formUnion(tokens.map { $0.lowercased() }) }
        if let count = settings.tooManyRequests { tooManyRequests = max(0, count) }
        if let count = settings.unavailable { unavailable = max(0, count) }
        if let milliseconds = settings.delayMilliseconds { delayMilliseconds = max(0, milliseconds) }
        if let count = settings.expireProviderToken { expireProviderToken = max(0, count) }
        if let hosts = settings.badDeviceToken {
            for (token, host) in hosts { badDeviceTokenHosts[token.lowercased()] = host.lowercased() }
        }
    }

    /// Back to a well-behaved APNs.
    public func clear() {
        unregistered = []
        tooManyRequests = 0
        unavailable = 0
        delayMilliseconds = 0
        expireProviderToken = 0
        badDeviceTokenHosts = [:]
    }

    /// What is switched on now, in the shape `apply` takes.
    public func current() -> APNsFaultSettings {
        APNsFaultSettings(
            unregistered: unregistered.sorted(), tooManyRequests: tooManyRequests, unavailable: unavailable,
            delayMilliseconds: delayMilliseconds,
            expireProviderToken: expireProviderToken, badDeviceToken: badDeviceTokenHosts)
    }

    var answerDelay: Duration { .milliseconds(delayMilliseconds) }

    /// Uses up one 503, if any are left.
    func takeUnavailable() -> Bool { take(&unavailable) }

    /// Uses up one `ExpiredProviderToken`, if any are left.
    func takeExpiredProviderToken() -> Bool { take(&expireProviderToken) }

    /// Uses up one 429, if any are left.
    func takeTooManyRequests() -> Bool { take(&tooManyRequests) }

    func isUnregistered(_ token: String) -> Bool { unregistered.contains(token.lowercased()) }

    /// Whether `host` refuses `token` as one of the other environment.
    func refusesAsOtherEnvironment(_ token: String, host: String) -> Bool {
        badDeviceTokenHosts[token.lowercased()] == host.lowercased()
    }

    private func take(_ count: inout Int) -> Bool {
        guard count > 0 else { return false }
        count -= 1
        return true
    }
}
