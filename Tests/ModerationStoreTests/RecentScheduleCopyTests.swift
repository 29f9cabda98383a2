import Foundation
import Testing

@testable import ModerationStore

/// The header's schedule copy and the store's own edits: the session actor's rule, for the schedule.
@Suite("On call: the schedule copy and a read that raced an edit")
struct RecentScheduleCopyTests {
    @Test("a schedule read begun before an edit here is not kept after it: the next view reads the edit")
    func readRacingAnEditIsNotKept() {
        // setup: a read takes its generation, then an edit in this process lands before the read is kept
        let copy = RecentSchedule()
        let now = Date()
        let generation = copy.generation()
        copy.forget()
        // act: the read that began before the edit tries to keep what it found
        copy.keep(rotation: nil, overrides: [], coversFrom: now, readAt: now, readSinceGeneration: generation)
        // check: nothing kept, so the next view reads again; a read begun after the edit is kept
        #expect(copy.schedule(since: now, now: now).map { _ in true } == nil)
        copy.keep(rotation: nil, overrides: [], coversFrom: now, readAt: now, readSinceGeneration: copy.generation())
        #expect(copy.schedule(since: now, now: now).map { _ in true } == true)
    }
}
