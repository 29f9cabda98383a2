import Foundation
import ModerationStore

/// Who may write the note for the next person: the person on call now, and the person who
/// just handed over until their hand-off's digest is built (a note sent at the last minute
/// still goes with it), for at most `grace`.
enum HandoffNoteWriter {
    static let grace: TimeInterval = 300

    /// Why `staffID` may write the note now.
    enum Standing: Equatable {
        case onCall
        /// Their hand-off at this instant happened, its digest not built yet: the store checks
        /// that again as it saves, since the digest may land in between.
        case handingOver(at: Date)

        var handoffNotBuiltAt: Date? {
            if case .handingOver(let at) = self { at } else { nil }
        }
    }

    /// `nil`: `staffID` may not write the note now.
    static func standing(_ staffID: Int, schedule: OnCallSchedule?, now: Date, store: ModerationStore) async throws -> Standing? {
        guard let schedule else { return nil }
        if schedule.member(at: now)?.id == staffID { return .onCall }
        guard let latest = schedule.latestHandoff(atOrBefore: now, lookback: grace), latest.outgoing.member.id == staffID else { return nil }
        return try await store.shiftHandoff(at: latest.at) == nil ? .handingOver(at: latest.at) : nil
    }
}
