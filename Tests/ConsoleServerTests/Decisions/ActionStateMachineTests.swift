import BookCornersAPI
import Clocks
import Foundation
import ModerationStore
import ModerationVocabulary
import Synchronization
import TestSupport
import Testing

@testable import ConsoleServer

/// The action runner's state machine, transition by transition, on a real SQLite file with a
/// clock the test moves by hand and a stand-in for Book Corners: rate limits, deadlines and
/// give-up times are checked in milliseconds. `ActionRunnerTests` proves the same runner against
/// the sandbox over real HTTP.
@Suite("ActionRunner: the decision's states on an injected clock", .timeLimit(.minutes(1)))
struct ActionStateMachineTests {
    private let account = Account(id: 7, username: "maria", email: "maria@example.com", isSocialOnly: false, isStaff: true)
    private let start = Date(timeIntervalSince1970: 1_795_000_000)

    /// A store with maria signed in, the stand-in backend, and a runner on `clock`.
    private struct Harness {
        let directory: TemporaryDirectory
        let store: ModerationStore
        let backend: ScriptedBookCorners
        let clock: TestClock<Duration>
        let runner: ActionRunner

        var now: Date { runner.clock.now }

        func action(_ id: Int64) async throws -> ModerationAction {
            try #require(try await store.action(id: id))
        }

        /// Moves the clock by `seconds` (rounded up to the millisecond the store keeps) and runs one pass.
        func pass(after seconds: Double = 0) async throws {
            if seconds > 0 { await clock.advance(by: .milliseconds(Int((seconds * 1000).rounded(.up)))) }
            try await runner.workThroughDueActions()
        }
    }

    private func harness(notFoundLimit: TimeInterval = ActionRunner.defaultNotFoundLimit) async throws -> Harness {
        let directory = try TemporaryDirectory()
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let sessions = StaffSessions(
            store: store, sealer: try TokenSealer(key: Data(repeating: 3, count: 32)), idleTimeout: 24 * 3_600, lifetime: 7 * 24 * 3_600,
            logger: ConsoleFixture.quietLogger)
        _ = try await sessions.start(account: account, tokens: TokenPair(access: "a", refresh: "r"), clientAddress: "", userAgent: "", now: start)
        let clock = TestClock<Duration>()
        let backend = ScriptedBookCorners()
        let runner = ActionRunner(
            store: store, client: backend, sessions: sessions, logger: ConsoleFixture.quietLogger, bundleID: "org.example.bookcorners",
            forwardClientAddress: false, notFoundLimit: notFoundLimit, clock: ServiceClock(clock, startingAt: start))
        return Harness(directory: directory, store: store, backend: backend, clock: clock, runner: runner)
    }

    /// Records maria's decision to move the item from `seen` to `wanted`.
    private func record(
        _ harness: Harness, kind: ModerationAction.TargetKind = .library, key: String, seen: ItemStatus = .pending, wanted: ItemStatus = .approved
    )
        async throws -> Int64
    {
        let action = ModerationAction(
            idempotencyKey: UUID().uuidString, actorId: account.id, actorUsername: account.username, targetKind: kind, targetKey: key,
            statusSeen: seen, statusWanted: wanted, reason: "", requestId: "test", clientAddress: "127.0.0.1", userAgent: "test", now: harness.now)
        return try #require(try await harness.store.record(action).action.id)
    }

    @Test("queued → waiting on a 429 until exactly retry_after on the runner's clock, then sent once: applied, audited, the submitter's push queued")
    func rateLimitedThenApplied() async throws {
        let harness = try await harness()
        defer { harness.directory.remove() }
        harness.backend.add(slug: "corner-a")
        let id = try await record(harness, key: "corner-a")
        harness.backend.failReads(.rateLimited(retryAfterSeconds: 30))
        // act 1
        try await harness.pass()
        // check 1: waiting, due when Book Corners said
        let waiting = try await harness.action(id)
        #expect(waiting.state == .waiting)
        #expect(waiting.backendStatus == 429)
        #expect(abs(waiting.nextAttemptAt.timeIntervalSince(start.addingTimeInterval(30))) < 0.01)
        #expect(waiting.outcomeMessage?.hasPrefix("Book Corners asked us to slow down") == true)
        // act 2: a second before it is due, nothing is read or sent
        try await harness.pass(after: 29)
        #expect(harness.backend.reads == 1)
        #expect(try await harness.action(id).state == .waiting)
        // act 3: when it is due
        try await harness.pass(after: 1)
        // check 3
        let applied = try await harness.action(id)
        #expect(applied.state == .applied)
        #expect(harness.backend.changes.map(\.status) == ["approved"])
        #expect(harness.backend.status(of: "corner-a") == "approved")
        let audit = try #require(try await harness.store.auditEntries(limit: 5).first)
        #expect(audit.action == "library.approve")
        #expect(audit.outcome == .applied)
        #expect(audit.recordedAt == start.addingTimeInterval(30), "recorded at the runner's now")
        #expect(try await harness.store.outboxMessages().map(\.recipientUserId) == [42])
    }

    @Test(
        "sending → waiting when the answer is lost: cut off at the send's deadline on the runner's clock; the re-check finds it applied and sends nothing again"
    )
    func lostAnswerConfirmedOnRecheck() async throws {
        let harness = try await harness()
        defer { harness.directory.remove() }
        harness.backend.add(slug: "corner-b")
        let id = try await record(harness, key: "corner-b")
        harness.backend.answerChanges(.appliedAnswerLost)
        let finished = Mutex(false)
        let pass = Task {
            try await harness.runner.workThroughDueActions()
            finished.withLock { $0 = true }
        }
        // The PATCH has gone out and hangs (coordination only: the clock has not moved).
        try await MirrorFixture.eventually("the change was sent", timeout: .seconds(10)) { !harness.backend.changes.isEmpty }
        #expect(try await harness.action(id).state == .sending)
        // act 1: time passes on the runner's clock, a second at a time, until the send is cut off
        var advanced = 0
        while !finished.withLock({ $0 }) && advanced < 60 {
            await harness.clock.advance(by: .seconds(1))
            advanced += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        try await pass.value
        // check 1: not before the deadline (2 × the 2-s request timeout + 1 s)
        #expect(advanced >= Int(harness.runner.sendDeadline))
        let unknown = try await harness.action(id)
        #expect(unknown.state == .waiting)
        #expect(unknown.unknownOutcomes == 1)
        // act 2: the re-check, once due
        try await harness.pass(after: unknown.nextAttemptAt.timeIntervalSince(harness.now))
        // check 2
        let applied = try await harness.action(id)
        #expect(applied.state == .applied)
        #expect(applied.outcomeMessage?.contains("(confirmed on re-check)") == true)
        #expect(harness.backend.changes.count == 1, "never sent twice")
    }

    @Test("queued → conflict when someone changed the item at Book Corners first: nothing sent, the outcome says to what")
    func changedElsewhereIsConflict() async throws {
        let harness = try await harness()
        defer { harness.directory.remove() }
        harness.backend.add(slug: "corner-c")
        let id = try await record(harness, key: "corner-c")
        harness.backend.setStatus("corner-c", .rejected)
        try await harness.pass()
        let conflict = try await harness.action(id)
        #expect(conflict.state == .conflict)
        #expect(conflict.outcomeMessage?.hasPrefix("Not sent: someone else changed this to rejected") == true)
        #expect(harness.backend.changes.isEmpty)
        #expect(try await harness.store.outboxMessages().isEmpty)
    }

    @Test("an item the check does not find waits 30 s, then longer each time (at most 5 min), and fails at the not-found limit on the runner's clock")
    func notFoundWaitsThenFails() async throws {
        let harness = try await harness()
        defer { harness.directory.remove() }
        let id = try await record(harness, kind: .photo, key: "77")
        // act: every pass as soon as it is due
        try await harness.pass()
        var gaps: [TimeInterval] = []
        var action = try await harness.action(id)
        while !action.state.isFinal && gaps.count < 40 {
            #expect(action.state == .waiting)
            let gap = action.nextAttemptAt.timeIntervalSince(harness.now)
            gaps.append(gap)
            try await harness.pass(after: gap)
            action = try await harness.action(id)
        }
        // check
        #expect(action.state == .failed)
        #expect(action.outcomeMessage?.hasPrefix("Not sent: Book Corners did not list this photo") == true)
        #expect(gaps.first.map { abs($0 - 30) < 0.01 } == true, "the first wait is 30 s: \(gaps)")
        #expect(zip(gaps, gaps.dropFirst()).dropLast().allSatisfy { $0 <= $1 }, "longer each time: \(gaps)")
        #expect(gaps.allSatisfy { $0 <= 300 }, "never more than 5 min: \(gaps)")
        #expect(abs(harness.now.timeIntervalSince(start) - ActionRunner.defaultNotFoundLimit) < 0.01, "failed at the limit, not later")
        #expect(harness.backend.listReads == 2 * (gaps.count + 1), "two list reads a look")
    }

    @Test("queued → parked when Book Corners says the session has expired; not tried again on its own, only after the author signs in again")
    func expiredSessionParks() async throws {
        let harness = try await harness()
        defer { harness.directory.remove() }
        harness.backend.add(slug: "corner-d")
        let id = try await record(harness, key: "corner-d")
        harness.backend.failReads(.sessionExpired)
        try await harness.pass()
        #expect(try await harness.action(id).state == .parked)
        // an hour on, still parked, nothing read
        try await harness.pass(after: 3_600)
        #expect(try await harness.action(id).state == .parked)
        #expect(harness.backend.reads == 1)
        // the author signs in again
        try await harness.store.unpark(actorId: account.id, now: harness.now)
        try await harness.pass()
        #expect(try await harness.action(id).state == .applied)
        #expect(harness.backend.changes.count == 1)
    }

    @Test("a server error waits with jitter, never past 2 s after the first attempt; the change refused for good (422) fails it with Book Corners' words")
    func serverErrorBacksOffThenRefusalFails() async throws {
        let harness = try await harness()
        defer { harness.directory.remove() }
        harness.backend.add(slug: "corner-e")
        let id = try await record(harness, key: "corner-e")
        harness.backend.failReads(.unavailable(.serverError(status: 503)))
        try await harness.pass()
        let waiting = try await harness.action(id)
        #expect(waiting.state == .waiting)
        let wait = waiting.nextAttemptAt.timeIntervalSince(start)
        #expect(wait >= 1 && wait <= 2, "full jitter up to 2 × 2^0 s after one attempt: \(wait)")
        harness.backend.answerChanges(.refused(.validation([BackendError.FieldError(location: "body.status", message: "not allowed", type: "value_error")])))
        try await harness.pass(after: wait)
        let failed = try await harness.action(id)
        #expect(failed.state == .failed)
        #expect(failed.outcomeMessage == "Not applied: Book Corners refused it (body.status: not allowed).")
        #expect(failed.backendStatus == 422)
        #expect(harness.backend.status(of: "corner-e") == "pending")
    }
}
