import Foundation

/// Faults to switch on, in-process or as the JSON body of `POST /apns/faults`; a field left
/// out leaves that fault as it was.
public struct APNsFaultSettings: Codable, Sendable, Equatable {
    /// Tokens answered 410 `Unregistered` from now on.
    public var unregistered: [String]?
    /// The next N pushes are answered 429 `TooManyRequests`.
    public var tooManyRequests: Int?
    /// The next N pushes are answered 503 `ServiceUnavailable`.
    public var unavailable: Int?
    /// Every answer waits this many milliseconds first.
    public var delayMilliseconds: Int?
    /// The next N pushes are answered 403 `ExpiredProviderToken`.
    public var expireProviderToken: Int?
    /// Tokens answered 400 `BadDeviceToken` when pushed to the named host (`localhost` or
    /// `127.0.0.1`, the stand-in's two names): a token of the other APNs environment, as Apple answers it.
    public var badDeviceToken: [String: String]?

    public init(
        unregistered: [String]? = nil, tooManyRequests: Int? = nil, unavailable: Int? = nil, delayMilliseconds: Int? = nil,
        expireProviderToken: Int? = nil, badDeviceToken: [String: String]? = nil
    ) {
        self.unregistered = unregistered
        self.tooManyRequests = tooManyRequests
        self.unavailable = unavailable
        self.delayMilliseconds = delayMilliseconds
        self.expireProviderToken = expireProviderToken
        self.badDeviceToken = badDeviceToken
    }
}
