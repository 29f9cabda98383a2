import Foundation
import GRDB

/// One message of an episode (or the note that nobody could be told), so its history reads:
/// who was told, when, and why.
public struct QueueAlertNotice: Codable, FetchableRecord, Sendable, Equatable {
    public static let databaseTableName = "queueAlertNotice"

    public var id: Int64
    public var alertId: Int64
    public var kind: Kind
    /// `nil`: nobody was on call, so nobody could be told.
    public var staffId: Int?
    public var staffUsername: String?
    public var sentAt: Date
    /// The outbox message that carries it; `nil` when nobody could be told.
    public var outboxMessageId: String?

    public init(
        id: Int64, alertId: Int64, kind: Kind, staffId: Int?, staffUsername: String?, sentAt: Date, outboxMessageId: String?
    ) {
        self.id = id
        self.alertId = alertId
        self.kind = kind
        self.staffId = staffId
        self.staffUsername = staffUsername
        self.sentAt = sentAt
        self.outboxMessageId = outboxMessageId
    }

    /// Why a message of an episode was sent.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// The first word to whoever holds the episode.
        case notice
        /// The same news again, `repeatInterval` after the last.
        case `repeat`
        /// The holder did not acknowledge in time: the next person in the rotation is told.
        case escalation

        public var label: String {
            switch self {
            case .notice: "Told"
            case .repeat: "Reminded"
            case .escalation: "Escalated to"
            }
        }
    }
}
