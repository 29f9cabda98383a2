import Foundation
import ModerationVocabulary

/// Where Book Corners lists a report or community photo, as far as the mirror knows: what
/// the check before a decision needs to read the one page that shows it instead of searching.
public struct MirrorPlace: Sendable, Equatable {
    /// An item's place in the backend's lists, which are newest first: by creation time, then id.
    public struct Key: Sendable, Equatable, Comparable {
        public let createdAt: Date
        public let id: Int

        public init(createdAt: Date, id: Int) {
            self.createdAt = createdAt
            self.id = id
        }

        /// Older first; the backend lists the greatest key first.
        public static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.createdAt, lhs.id) < (rhs.createdAt, rhs.id)
        }
    }

    public let kind: ModerationAction.TargetKind
    public let key: Key
    public let status: ItemStatus
    /// A report's reason (it never changes); nil for a photo.
    public let reason: ReportReason?
    /// Marked gone by the mirror; its place is still where it was when it was listed.
    public let isGone: Bool

    public init(kind: ModerationAction.TargetKind, key: Key, status: ItemStatus, reason: ReportReason?, isGone: Bool) {
        self.kind = kind
        self.key = key
        self.status = status
        self.reason = reason
        self.isGone = isGone
    }
}
