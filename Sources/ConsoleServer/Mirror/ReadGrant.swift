import Foundation

/// The planner's answer to a request for a read.
public enum ReadGrant: Sendable, Equatable {
    /// Go ahead: the read has been counted.
    case granted
    /// Not before `until`: this window's budget for the purpose is spent, or the scope is
    /// paused after a 429 (`paused` is then true).
    case wait(until: Date, paused: Bool)
}
