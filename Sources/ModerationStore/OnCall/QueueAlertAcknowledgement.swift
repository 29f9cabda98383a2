/// What came of a staff member acknowledging an episode.
public enum QueueAlertAcknowledgement: Sendable, Equatable {
    /// Acknowledged now, by them (audited).
    case acknowledged(QueueAlert)
    /// Someone acknowledged it before (maybe them): nothing changed.
    case alreadyAcknowledged(QueueAlert)
    /// The queue went back under target first: nothing to acknowledge.
    case alreadyClosed(QueueAlert)
    case notFound
}
