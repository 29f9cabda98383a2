import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary
import TestSupport
import Testing

@testable import ConsoleServer

/// The decision protocol's table and its guards in the store, each rule on its own.
/// `DecisionSimulationTests` searches schedules that combine them.
@Suite("The decision protocol in one place")
struct DecisionProtocolTests {
    private let start = Date(timeIntervalSince1970: 1_795_000_200)

    @Test("every move the protocol's table makes is one the decision's state machine allows, and every event leads somewhere")
    func tableFollowsTheStateMachine() {
        for state in ModerationAction.State.allCases {
            for event in DecisionProtocol.Event.allCases {
                guard let next = DecisionProtocol.next(after: state, on: event) else { continue }
                #expect(next == state || state.allowedNext.contains(next), "\(state) on \(event) → \(next)")
            }
        }
        for event in DecisionProtocol.Event.allCases {
            #expect(ModerationAction.State.allCases.contains { DecisionProtocol.next(after: $0, on: event) != nil }, "\(event) leads nowhere")
        }
        #expect(
            ModerationAction.State.allCases.filter(\.isFinal).allSatisfy { state in
                DecisionProtocol.Event.allCases.allSatisfy { DecisionProtocol.next(after: state, on: $0) == nil }
            })
    }

    @Test("the check's verdict: as seen sends; as wanted after an unknown outcome is ours; a decision applied since, or a later one sent, always wins")
    func verdicts() {
        let rules = DecisionProtocol()
        var action = decision(seen: .pending, wanted: .approved)
        #expect(rules.verdict(for: action, found: .pending, decidedSince: false) == .send)
        #expect(rules.verdict(for: action, found: .approved, decidedSince: false) == .conflict, "nothing of ours went out: someone else's")
        #expect(rules.verdict(for: action, found: nil, decidedSince: false) == .conflict, "a status nobody saw")
        action.unknownOutcomes = 1
        #expect(rules.verdict(for: action, found: .approved, decidedSince: false) == .confirmApplied)
        #expect(rules.verdict(for: action, found: .approved, decidedSince: true) == .conflict, "a colleague's identical decision is theirs")
        #expect(rules.verdict(for: action, found: .pending, decidedSince: true) == .conflict, "back as seen after an undo: still not sent")
    }

    @Test("a PATCH counts as in flight until its send's deadline and the bound have passed; the rules before issue 45 had no bound")
    func inFlightBound() {
        let rules = DecisionProtocol(inFlightLimit: 90)
        #expect(rules.inFlightUntil(sendStartedAt: start, sendDeadline: 21) == start.addingTimeInterval(111))
        #expect(DecisionProtocol.withoutGuards.inFlightUntil(sendStartedAt: start, sendDeadline: 21) == nil)
        #expect(!DecisionProtocol.withoutGuards.guardsItem && rules.guardsItem)
    }

    @Test(
        "after a failed call the protocol decides the step: a lost PATCH answer waits out its in-flight bound, a 429 waits as told and holds calls, an ended session parks, a refusal fails, each in words"
    )
    func stepsAfterFailures() {
        let rules = DecisionProtocol()
        let action = decision(seen: .pending, wanted: .approved)
        let jitter = JitterSource { $0.lowerBound }
        let inFlightUntil = start.addingTimeInterval(111)
        func step(_ error: BackendError, duringSend: Bool = true) -> DecisionProtocol.Step {
            rules.afterFailure(
                error, of: action, sendNotApplied: DecisionProtocol.sendProvedNotApplied(error, duringSend: duringSend), inFlightUntil: inFlightUntil,
                now: start, jitter: jitter)
        }

        guard case .wait(let until, let message, nil, false) = step(.unavailable(.timedOut)) else {
            Issue.record("a timed-out PATCH waits")
            return
        }
        #expect(until == inFlightUntil && message.contains("so that it is not sent twice"), "I2: no re-check while it may still act")
        guard case .wait(let retry, _, nil, false) = step(.unavailable(.connectionRefused)) else {
            Issue.record("a refused connection waits")
            return
        }
        #expect(retry < inFlightUntil, "a PATCH that never connected cannot act: the usual backoff")
        #expect(
            step(.rateLimited(retryAfterSeconds: 40))
                == .wait(
                    until: start.addingTimeInterval(40),
                    message: "Book Corners asked us to slow down; next try \(TeamClock.stamp(start.addingTimeInterval(40))).", backendStatus: 429,
                    holdsCalls: true))
        #expect(step(.sessionExpired) == .park(message: "Waiting for maria to sign in again; it is sent as soon as they do.", backendStatus: 401))
        #expect(step(.notFound) == .fail(message: "Not applied: this item no longer exists at Book Corners.", backendStatus: 404))
        #expect(step(.notStaff).event == .refused && step(.sessionExpired).event == .sessionEnded && step(.unavailable(.timedOut)).event == .answerLost)
        for error in [BackendError.unavailable(.timedOut), .rateLimited(retryAfterSeconds: 5), .sessionExpired, .notFound] {
            #expect(DecisionProtocol.next(after: .sending, on: step(error).event) != nil, "\(error): the table has its move")
        }
    }

    @Test("an item the check does not find waits, longer each time, and fails in words once the limit has passed since it was first missed")
    func notFoundWaitsThenFails() {
        let rules = DecisionProtocol()
        var action = decision(seen: .pending, wanted: .approved)
        guard case .wait(let first, let message, _, _) = rules.afterNotFound(action, why: "not listed", notFoundLimit: 900, now: start) else {
            Issue.record("first miss waits")
            return
        }
        #expect(first == start.addingTimeInterval(30) && message.hasPrefix("Not sent yet: not listed."))
        action.notFoundSince = start
        guard case .fail(let words, nil) = rules.afterNotFound(action, why: "not listed", notFoundLimit: 900, now: start.addingTimeInterval(900)) else {
            Issue.record("past the limit it fails")
            return
        }
        #expect(words.hasPrefix("Not sent: not listed, and has not since"))
    }

    @Test("delivering news Book Corners pushes itself is refused, in words, unless its own pushes are said to be off")
    func policyRefusesDoubledPushes() throws {
        #expect {
            try DeliveryPolicy.parse("library.approved=deliver")
        } throws: { error in
            (error as? DeliveryPolicy.Problem)?.description.contains("they would be told twice") == true
        }
        #expect(throws: DeliveryPolicy.Problem.self) { try DeliveryPolicy.parse("photo.approved=deliver, library.rejected=deliver") }
        let off = try DeliveryPolicy.parse("library.approved=deliver", bookCornersPushesOff: true)
        #expect(off.rule(for: .libraryApproved) == .deliver)
        #expect(try DeliveryPolicy.parse("photo.approved=deliver").rule(for: .libraryApproved) == .recordedOnly)
    }

    @Test(
        "two processes on one database: a second decision on an item is not claimed while the first is claimed, nor while its PATCH may be in flight; it waits in words, then goes"
    )
    func itemGuardAcrossProcesses() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (first, second, maria, staff) = try await twoDecisionsOnOneItem(directory)
        let busyWords: @Sendable (ItemBusy) -> String = { "busy with \($0.by.actorUsername) until \($0.until.timeIntervalSince1970)" }

        // maria's decision is claimed by the first process; staff's cannot be, and waits with words
        guard case .claimed = try await first.claim(maria, owner: "one", leaseUntil: start.addingTimeInterval(10), now: start, busy: busyWords) else {
            Issue.record("maria's decision was not claimed")
            return
        }
        guard case .itemBusy(let busy) = try await second.claim(staff, owner: "two", leaseUntil: start.addingTimeInterval(10), now: start, busy: busyWords)
        else {
            Issue.record("staff's decision was claimed beside maria's")
            return
        }
        #expect(busy.by.id == maria)
        let waiting = try #require(try await second.action(id: staff))
        #expect(waiting.state == .waiting && waiting.outcomeMessage?.hasPrefix("busy with maria") == true)

        // maria's PATCH goes out and its answer is lost: in flight until its bound, for both decisions
        let inFlightUntil = start.addingTimeInterval(111)
        try await first.beginSend(maria, owner: "one", leaseUntil: start.addingTimeInterval(40), inFlightUntil: inFlightUntil, now: start)
        try await first.release(maria, owner: "one", to: .waiting, nextAttemptAt: start.addingTimeInterval(2), message: "lost", backendStatus: nil, now: start)
        #expect(try await first.action(id: maria)?.nextAttemptAt == inFlightUntil, "no re-check before the bound")
        let later = start.addingTimeInterval(60)
        guard case .itemBusy(let stillBusy) = try await second.claim(staff, owner: "two", leaseUntil: later.addingTimeInterval(10), now: later, busy: busyWords)
        else {
            Issue.record("staff's decision was claimed while maria's PATCH may still be in flight")
            return
        }
        #expect(stillBusy.until == inFlightUntil)

        // past the bound, staff's decision may go (its check then sees what maria's PATCH did)
        let past = inFlightUntil.addingTimeInterval(1)
        guard case .claimed = try await second.claim(staff, owner: "two", leaseUntil: past.addingTimeInterval(10), now: past, busy: busyWords) else {
            Issue.record("staff's decision was not claimed after the bound")
            return
        }
    }

    @Test(
        "a runner whose lease ran out while a renewal waited (a stall) cannot revive it, nor start a PATCH, once another process claimed a second decision on the item"
    )
    func lapsedLeaseStaysLapsed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (first, second, maria, staff) = try await twoDecisionsOnOneItem(directory)
        let words: @Sendable (ItemBusy) -> String = { _ in "busy" }
        _ = try await first.claim(maria, owner: "one", leaseUntil: start.addingTimeInterval(10), now: start, busy: words)

        // the first runner stalls past its lease; the second process claims staff's decision and starts its PATCH
        let stalled = start.addingTimeInterval(10.5)
        guard case .claimed = try await second.claim(staff, owner: "two", leaseUntil: stalled.addingTimeInterval(10), now: stalled, busy: words) else {
            Issue.record("the item was not free once maria's lease ran out")
            return
        }
        try await second.beginSend(
            staff, owner: "two", leaseUntil: stalled.addingTimeInterval(31), inFlightUntil: stalled.addingTimeInterval(111), now: stalled)

        // the stalled runner wakes: its renewal and its PATCH are both refused
        let woken = start.addingTimeInterval(11.6)
        await #expect(throws: ActionStoreError.self) { try await first.renewLease(maria, owner: "one", until: woken.addingTimeInterval(10), now: woken) }
        await #expect(throws: ActionStoreError.self) { try await first.beginSend(maria, owner: "one", now: woken) }
        #expect(try await first.action(id: maria)?.attempts == 0, "maria's decision was never sent")
    }

    @Test(
        "the last step before a PATCH asserts the item guard again: a runner holding a live lease still may not send while another decision on the item is in flight"
    )
    func beginSendAssertsTheItemGuard() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (store, _, maria, staff) = try await twoDecisionsOnOneItem(directory)
        let words: @Sendable (ItemBusy) -> String = { _ in "busy" }
        // claimed without the item guard (as only the simulation's proof does), both at once
        _ = try await store.claim(maria, owner: "one", leaseUntil: start.addingTimeInterval(30), now: start, guardsItem: false, busy: words)
        _ = try await store.claim(staff, owner: "two", leaseUntil: start.addingTimeInterval(30), now: start, guardsItem: false, busy: words)
        await #expect(throws: ActionStoreError.self, "staff's decision is claimed by a live runner") {
            try await store.beginSend(maria, owner: "one", inFlightUntil: start.addingTimeInterval(111), now: start)
        }
        try await store.release(staff, owner: "two", to: .waiting, nextAttemptAt: start, message: "let go", backendStatus: nil, now: start)
        try await store.beginSend(maria, owner: "one", inFlightUntil: start.addingTimeInterval(111), now: start)
        _ = try await store.claim(staff, owner: "two", leaseUntil: start.addingTimeInterval(30), now: start, guardsItem: false, busy: words)
        await #expect(throws: ActionStoreError.self, "maria's PATCH may be in flight") {
            try await store.beginSend(staff, owner: "two", now: start.addingTimeInterval(1))
        }
    }

    /// Two stores on one database file (two processes), maria's approval recorded through the
    /// first and staff's rejection of the same library through the second.
    private func twoDecisionsOnOneItem(
        _ directory: TemporaryDirectory
    ) async throws -> (first: ModerationStore, second: ModerationStore, maria: Int64, staff: Int64) {
        let first = try ModerationStore(path: directory.path("console.sqlite"))
        let second = try ModerationStore(path: directory.path("console.sqlite"))
        let maria = try #require(try await first.record(decision(seen: .pending, wanted: .approved, actor: (7, "maria"), key: "a")).action.id)
        let staff = try #require(try await second.record(decision(seen: .pending, wanted: .rejected, actor: (2, "staff"), key: "b")).action.id)
        return (first, second, maria, staff)
    }

    private func decision(
        seen: ItemStatus, wanted: ItemStatus, actor: (id: Int, name: String) = (7, "maria"), key: String = UUID().uuidString
    ) -> ModerationAction {
        ModerationAction(
            idempotencyKey: key, actorId: actor.id, actorUsername: actor.name, targetKind: .library, targetKey: "corner", statusSeen: seen,
            statusWanted: wanted, reason: "", requestId: key, clientAddress: "127.0.0.1", userAgent: "test", now: start)
    }
}
