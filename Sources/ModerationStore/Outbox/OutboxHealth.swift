import Foundation
import GRDB

/// How many messages are in each state, and how delivery went lately: for the dashboard.
public struct OutboxHealth: Sendable, Equatable {
    public var counts: [OutboxMessage.State: Int]
    /// Attempts in the window that failed or will be retried (a token found gone is not a
    /// failure of delivery), and those that delivered.
    public var recentFailures: Int
    public var recentDeliveries: Int
    /// The newest failed attempt's reason, if any failed in the window.
    public var lastFailureReason: String
    public var lastFailureAt: Date?

    public func count(_ state: OutboxMessage.State) -> Int { counts[state] ?? 0 }
}
