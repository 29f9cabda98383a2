import Foundation
import GRDB

extension ModerationStore {
    /// Stores where `scope`'s full pass stands (`state`'s pass fields) only if the stored pass is
    /// still the one `previous` read (its next page and start): a process whose lease lapsed
    /// mid-read can never rewind another's cursor. Answers whether it was stored.
    public func advanceMirrorPass(_ state: MirrorScopeState, from previous: MirrorScopeState) async throws -> Bool {
        try await writer.write { db in
            var current = try MirrorScopeState.fetchOne(db, key: state.scope.rawValue) ?? MirrorScopeState(scope: state.scope)
            guard current.passNextPage == previous.passNextPage, current.passStartedAt == previous.passStartedAt else { return false }
            current.passNextPage = state.passNextPage
            current.passStartedAt = state.passStartedAt
            current.lastCompletePassStartedAt = state.lastCompletePassStartedAt
            current.lastPassCompletedAt = state.lastPassCompletedAt
            try current.upsert(db)
            return true
        }
    }
}
