import Foundation
import GRDB

/// What one claimed message comes to: a final state, or pending again at `nextAttemptAt`.
public struct OutboxSettlement: Sendable, Equatable {
    public var messageID: String
    public var state: OutboxMessage.State
    public var reason: String
    public var attempts: [OutboxAttempt]
    public var nextAttemptAt: Date?
    /// What the attempts told about each device, in the environment tried; when empty, the
    /// attempts' outcomes speak for their tokens' own environments.
    public var deviceReports: [DeviceReport]

    public init(
        messageID: String, state: OutboxMessage.State, reason: String, attempts: [OutboxAttempt], nextAttemptAt: Date? = nil,
        deviceReports: [DeviceReport] = []
    ) {
        self.messageID = messageID
        self.state = state
        self.reason = reason
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.deviceReports = deviceReports
    }
}
