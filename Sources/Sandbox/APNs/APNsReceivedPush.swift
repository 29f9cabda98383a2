import Foundation

/// One push the stand-in received, and what it answered.
public struct APNsReceivedPush: Codable, Sendable, Equatable {
    public let deviceToken: String
    /// The host and port the push was addressed to (`:authority`), telling APNs' two hosts apart.
    public let authority: String
    /// The request's headers, lower-cased names; `authorization` is left out.
    public let headers: [String: String]
    public let payload: String
    public let receivedAt: Date
    public let status: Int
    /// Apple's reason when refused; empty on 200.
    public let reason: String
    /// `HTTP/2` or `HTTP/1.1`: how the push arrived.
    public let httpVersion: String
}
