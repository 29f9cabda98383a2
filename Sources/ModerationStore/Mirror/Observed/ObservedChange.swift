import Foundation
import GRDB
import ModerationVocabulary

/// What a new read of a mirrored item says, compared with the row the mirror had: the one
/// place that tells a change made outside the console from the console's own decisions.
enum ObservedChange: Equatable {
    /// Nothing to compare with: the first pass after installation, a new submission, or a
    /// row marked gone that the backend lists again.
    case firstSeen
    /// A read that started before the row's last confirmation: older news, ignored.
    case stale
    case unchanged
    /// The console's own decision: applied since the previous read, or sent without a
    /// known outcome and not finished yet.
    case console
    case outside(from: ItemStatus, to: ItemStatus)

    /// Compares `read` with the row the mirror holds for it (`previous`), inside the
    /// transaction that will store it.
    static func compare<Item: MirroredItem>(_ read: Item, with previous: Item?, _ db: Database) throws -> ObservedChange {
        guard let previous, previous.goneAt == nil else { return .firstSeen }
        if read.lastConfirmedAt < previous.lastConfirmedAt { return .stale }
        if read.itemStatus == previous.itemStatus { return .unchanged }
        if try consoleDecisionExplains(Item.kind, key: read.actionKey, status: read.itemStatus, since: previous.lastConfirmedAt, db) {
            return .console
        }
        return .outside(from: previous.itemStatus, to: read.itemStatus)
    }

    /// Whether a decision of the console set `status`: one applied after the previous read
    /// started (one applied before it would have shown in that read), or one whose PATCH
    /// may have landed (an answer lost) and that is not finished yet.
    private static func consoleDecisionExplains(
        _ kind: ModerationAction.TargetKind, key: String, status: ItemStatus, since previousRead: Date, _ db: Database
    ) throws -> Bool {
        let unsure: [ModerationAction.State] = [.sending, .waiting, .parked]
        let placeholders = unsure.map { _ in "?" }.joined(separator: ", ")
        var arguments: StatementArguments = [kind.rawValue, key, status.rawValue, ModerationAction.State.applied.rawValue, previousRead]
        arguments += StatementArguments(unsure.map(\.rawValue))
        return try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM action WHERE targetKind = ? AND targetKey = ? AND statusWanted = ?
                  AND ((state = ? AND updatedAt >= ?) OR (state IN (\(placeholders)) AND unknownOutcomes > 0)))
                """, arguments: arguments) ?? false
    }
}
