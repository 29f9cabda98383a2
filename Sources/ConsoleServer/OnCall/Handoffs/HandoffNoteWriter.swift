import Foundation
import ModerationStore

/// Who may write the note for the next person: the person on call now, and the person who
/// just handed over until their hand-off's digest is built (a note sent at the last minute
/// still goes with it), for at most `grace`.
enum HandoffNoteWriter {
    static let grace: TimeInterval = 300

    static func mayWrite(_ staffID: Int, schedule: OnCallSchedule?, now: Date, store: ModerationStore) async throws -> Bool {
        guard let schedule else { return false }
        if schedule.member(at: now)?.id == staffID { return true }
        guard let latest = schedule.latestHandoff(atOrBefore: now, lookback: grace), latest.outgoing.member.id == staffID else { return false }
        return try await store.shiftHandoff(at: latest.at) == nil
    }
}
