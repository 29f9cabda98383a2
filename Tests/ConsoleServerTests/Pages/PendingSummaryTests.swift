import Foundation
import ModerationStore
import ModerationVocabulary
import Testing

@testable import ConsoleServer

/// The Pending actions panel's one line: decisions waiting for Book Corners' limits grouped by
/// the minute they send, not "in 4 min" on each.
@Suite("Pending actions: the one-line summary")
struct PendingSummaryTests {
    private let now = Date(timeIntervalSince1970: 1_795_032_000)  // 2026-11-18 20:00 UTC

    private func action(_ state: ModerationAction.State, sendsIn seconds: TimeInterval = 0) -> ModerationAction {
        var action = ModerationAction(
            idempotencyKey: UUID().uuidString, actorId: 1, actorUsername: "maria", targetKind: .library, targetKey: "corner", statusSeen: .pending,
            statusWanted: .approved, reason: "", requestId: "", clientAddress: "", userAgent: "", now: now)
        action.state = state
        action.nextAttemptAt = now.addingTimeInterval(seconds)
        return action
    }

    @Test("13 waiting for two windows: one count per minute they send at, as each row says it")
    func groupedByWindow() {
        let actions = Array(repeating: action(.waiting, sendsIn: 250), count: 10) + Array(repeating: action(.waiting, sendsIn: 570), count: 3)
        #expect(PendingSummary(actions, now: now).text == "13 waiting: 10 at 20:04 UTC, 3 at 20:09 UTC")
    }

    @Test("some going now, some waiting, one held for its author: each said once")
    func mixed() {
        let actions = [action(.sending), action(.queued), action(.waiting, sendsIn: 30), action(.parked)]
        #expect(
            PendingSummary(actions, now: now).text
                == "2 decisions on the way to Book Corners · 1 waiting: 1 at 20:00 UTC · 1 held until its author signs in again")
        #expect(PendingSummary([], now: now).parts.isEmpty)
    }

    @Test("decisions cancelled or not applied lately are said, never a blank line above a list of them")
    func cancelledAndRefused() {
        #expect(PendingSummary([action(.cancelled), action(.cancelled)], now: now).text == "2 cancelled in the last 15 minutes")
        #expect(
            PendingSummary([action(.waiting, sendsIn: 30), action(.failed), action(.cancelled)], now: now).text
                == "1 waiting: 1 at 20:00 UTC · 1 not applied in the last 15 minutes · 1 cancelled in the last 15 minutes")
    }
}
