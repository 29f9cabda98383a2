import Foundation
import ModerationStore

extension ModerationStore {
    /// `username`'s latest decision on the item `key` of `kind` once `done` holds for it, or the
    /// latest there is after `seconds`: decisions are sent by the runner, which a loaded machine slows.
    func latestDecision(
        by username: String, kind: ModerationAction.TargetKind, key: String, seconds: Int = 15,
        until done: (ModerationAction) -> Bool
    ) async throws -> ModerationAction? {
        guard let staff = try await staffMembers().first(where: { $0.username == username })?.id else { return nil }
        var latest: ModerationAction?
        for _ in 0..<(seconds * 10) {
            latest = try await recentDecisions(actorId: staff, kind: kind, since: .distantPast).first { $0.targetKey == key }
            if let latest, done(latest) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return latest
    }
}
