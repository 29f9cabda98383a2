import Foundation
import ModerationVocabulary

/// How one item stands now, from the console's database alone: its mirrored status, the
/// latest decision recorded on it, and the live claim on it.
public struct LiveItem: Sendable {
    public let target: ItemClaim.Target
    /// nil when the mirror has no such item; `isGone` when Book Corners deleted it.
    public let status: ItemStatus?
    public let isGone: Bool
    public let latestDecision: ModerationAction?
    public let claim: ItemClaim?
}
