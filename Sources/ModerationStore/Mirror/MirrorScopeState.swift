import Foundation
import GRDB

/// What the sync knows about one rate-limit scope, kept so a restart resumes where it was:
/// the full pass under way (the next page to read and when the pass began). The reads spent
/// and pauses once kept here (`windowIndex` … `pausedUntil`) are no longer written: every
/// process counts in `backendBudget` and `backendPause` (`ModerationStore+BackendBudget`).
public struct MirrorScopeState: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "mirrorScopeState"

    public var scope: MirrorScope
    /// `floor(epoch seconds / window)` of the window `readsSpent` counts in.
    public var windowIndex: Int
    public var readsSpent: Int
    /// Of `readsSpent`, those taken from the share reserved for checks before decisions.
    public var decisionReadsSpent: Int
    /// No read in this scope before this instant (the backend's `retry_after`).
    public var pausedUntil: Date?
    /// The next page of the full pass; 1 when no pass is under way.
    public var passNextPage: Int
    /// When the pass under way read its first page: rows not confirmed since were missing from it.
    public var passStartedAt: Date?
    /// When the last complete pass began: what it did not list needs confirming.
    public var lastCompletePassStartedAt: Date?
    public var lastPassCompletedAt: Date?

    public init(
        scope: MirrorScope, windowIndex: Int = 0, readsSpent: Int = 0, decisionReadsSpent: Int = 0, pausedUntil: Date? = nil,
        passNextPage: Int = 1, passStartedAt: Date? = nil, lastCompletePassStartedAt: Date? = nil, lastPassCompletedAt: Date? = nil
    ) {
        self.scope = scope
        self.windowIndex = windowIndex
        self.readsSpent = readsSpent
        self.decisionReadsSpent = decisionReadsSpent
        self.pausedUntil = pausedUntil
        self.passNextPage = passNextPage
        self.passStartedAt = passStartedAt
        self.lastCompletePassStartedAt = lastCompletePassStartedAt
        self.lastPassCompletedAt = lastPassCompletedAt
    }
}
