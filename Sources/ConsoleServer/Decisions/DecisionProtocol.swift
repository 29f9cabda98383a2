import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary

/// The decision protocol in one place: how a recorded decision reaches Book Corners exactly
/// once, though Book Corners has no idempotency keys, limits writes per client, may queue a
/// request before acting on it, and may act and lose the answer. `ActionRunner` carries out
/// what this type decides (reads, PATCHes, store writes); the store's guarded updates enforce
/// the parts two processes must agree on. `docs/decision-protocol.md` explains it for a newcomer.
///
/// The invariants, and where each is enforced:
/// - **I1, one PATCH per item in flight.** Across every process on the database, a decision on
///   an item is never checked or sent while another decision on that item is claimed by a live
///   runner or has a PATCH that may still be in flight: the guarded claim
///   (`ModerationStore.claim(_:owner:leaseUntil:now:guardsItem:busy:)`), and `beginSend`, which
///   refuses a runner whose lease ran out.
/// - **I2, "may still be in flight" has a bound.** A PATCH whose outcome is unknown counts as in
///   flight until `inFlightLimit` after it may last have left (`inFlightUntil`, stored by
///   `beginSend`); only
///   a check read after that may conclude it did not apply and send again (`release` never sets a
///   re-check sooner; `dueActions` and the claim skip the decision until then). The bound is an
///   assumption about the deployment, which the operator guarantees (docs/operations.md).
/// - **I3, every decision ends once, in words.** One final state and one audit entry each, in one
///   transaction (`ModerationStore.finish`): applied, a conflict naming who changed the item, or
///   failed saying why.
/// - **I4, pushes.** The console queues a push only for an applied decision, once (the outcome's
///   transaction), marks those Book Corners sends itself as recorded only, and the outbox
///   policy refuses to deliver those (`OutboxPolicy`); APNs collapses repeats by item.
/// - **I5, budget.** Every backend call passes the one budget gate (`BackendBudget`).
struct DecisionProtocol: Sendable {
    /// I2's bound: how long after a PATCH started Book Corners may still act on it.
    let inFlightLimit: TimeInterval
    /// I1's item guard in the claim; off only in the simulation's proof that it finds the faults.
    let guardsItem: Bool
    /// Whether a re-check after an unknown outcome waits out `inFlightLimit` (I2); off only in
    /// the simulation's proof ("the old retry rule": re-check after a second or two).
    let waitsOutInFlight: Bool

    /// The default bound: Book Corners' gunicorn ends a request 30 s after a worker takes it, and
    /// the proxy in front of it (nginx's proxy_read_timeout, 60 s by default) stops a queued
    /// one; 90 s covers both, with the console's own 10-s request timeout inside it.
    static let defaultInFlightLimit: TimeInterval = 90

    init(inFlightLimit: TimeInterval = Self.defaultInFlightLimit, guardsItem: Bool = true, waitsOutInFlight: Bool = true) {
        self.inFlightLimit = inFlightLimit
        self.guardsItem = guardsItem
        self.waitsOutInFlight = waitsOutInFlight
    }

    /// The rules before the protocol had I1's guard and I2's bound, kept so that the simulation
    /// can prove it finds the faults they let through.
    static let withoutGuards = DecisionProtocol(inFlightLimit: 0, guardsItem: false, waitsOutInFlight: false)

    // MARK: States and events

    /// What happens to a decision; `next(after:on:)` says where each leads.
    enum Event: Sendable, CaseIterable {
        /// A runner claimed it (or took it over from a runner whose lease lapsed).
        case claimed
        /// The claim found its item busy (I1) or its own PATCH possibly in flight (I2).
        case itemBusy
        /// The check read found the item as the moderator saw it: the PATCH starts.
        case sendStarted
        /// The check read found it already as wanted after an unknown outcome: ours applied.
        case checkFoundApplied
        /// The check read found it changed by someone else.
        case checkFoundChanged
        /// The check read failed, or its budget is spent: tried again later.
        case checkFailed
        /// Book Corners answered the PATCH: applied.
        case answerApplied
        /// The PATCH's answer was lost or timed out: its outcome is unknown until the bound.
        case answerLost
        /// Book Corners (or our own budget) answered 429: tried again when it said.
        case rateLimited
        /// Book Corners refused the change for good (404, 422, 403).
        case refused
        /// The author's session ended: the decision waits for them to sign in again.
        case sessionEnded
        /// The author signed in again.
        case authorReturned
        /// Book Corners says its author is no longer staff: held, not sent in their name.
        case authorRemoved
        /// The author took it back before it was sent.
        case cancelled
        /// The runner's lease lapsed (it died, or stalled): another may claim it.
        case leaseLapsed
        /// A restarted process finds it unfinished: the same as a lapsed lease.
        case restarted
    }

    /// The state a decision in `state` moves to on `event`; nil when the event cannot happen
    /// there. Every move listed is one `ModerationAction.State.allowedNext` allows.
    static func next(after state: ModerationAction.State, on event: Event) -> ModerationAction.State? {
        switch (state, event) {
        case (.queued, .claimed), (.waiting, .claimed): .sending
        case (.queued, .itemBusy), (.waiting, .itemBusy), (.sending, .itemBusy): .waiting
        case (.queued, .cancelled), (.waiting, .cancelled), (.parked, .cancelled): .cancelled
        case (.sending, .sendStarted), (.sending, .leaseLapsed), (.sending, .restarted): .sending
        case (.sending, .checkFoundApplied), (.sending, .answerApplied): .applied
        case (.sending, .checkFoundChanged): .conflict
        case (.sending, .checkFailed), (.sending, .answerLost), (.sending, .rateLimited): .waiting
        case (.sending, .refused): .failed
        case (.sending, .sessionEnded): .parked
        case (.parked, .authorReturned): .queued
        case (.queued, .authorRemoved), (.waiting, .authorRemoved): .parked
        default: nil
        }
    }

    // MARK: What the check decides

    /// What the check read before a send decides.
    enum Verdict: Equatable, Sendable {
        /// As the moderator saw it: send.
        case send
        /// Already as wanted, and an earlier PATCH of ours may have done it: applied.
        case confirmApplied
        /// Already as wanted after a restore from a backup taken before it went out.
        case alreadyAppliedBeforeRestore(Date)
        /// Someone else changed it: not sent.
        case conflict
    }

    /// What the check read `found` decides for `action` (nil: a status this console does not
    /// know, which nobody saw, so a conflict). `decidedSince`: another decision made through the
    /// console was applied to the item after this one was made. Then this one is never sent, even
    /// when the item is back as the moderator saw it (an undo in between), and the item being as
    /// it wanted is that decision's doing, not an earlier attempt of its own: the item guard (I1)
    /// let the other go out only once this one's PATCH could no longer act, and had it acted the
    /// other would have found the item changed. Otherwise only an attempt whose outcome is
    /// unknown may have made the item what it wanted. The read is taken after the bound of I2
    /// (the claim sees to it), so a PATCH still queued at Book Corners cannot arrive after it.
    func verdict(for action: ModerationAction, found: ItemStatus?, decidedSince: Bool) -> Verdict {
        guard let found, !decidedSince else { return .conflict }
        if found == action.statusWanted, action.unknownOutcomes > 0 { return .confirmApplied }
        if found == action.statusWanted, found != action.statusSeen, let restoredAt = action.restoredAt {
            return .alreadyAppliedBeforeRestore(restoredAt)
        }
        return found == action.statusSeen ? .send : .conflict
    }

    // MARK: Times

    /// Until when a PATCH whose send started at `start` may still act at Book Corners (I2); nil
    /// under the old rule. The request may leave as late as the send's deadline (a wait for the
    /// budget's window, a token refresh first), and Book Corners may act on it for
    /// `inFlightLimit` after it left.
    func inFlightUntil(sendStartedAt start: Date, sendDeadline: TimeInterval) -> Date? {
        waitsOutInFlight ? start.addingTimeInterval(sendDeadline + inFlightLimit) : nil
    }

    /// When to try again after Book Corners gave no usable answer, the `attempts`-th time:
    /// exponential backoff with full jitter (2 s, 4 s, … capped at 5 minutes). The store moves
    /// it past the PATCH's `inFlightUntil` when its outcome is unknown.
    func retryAfterNoAnswer(attempts: Int, now: Date, jitter: JitterSource) -> Date {
        let ceiling = min(300, 2 * pow(2, Double(min(attempts, 10))))
        return now.addingTimeInterval(jitter.uniform(1...max(1, ceiling)))
    }
}

/// The random source of the retry jitter: the system's in production, a seeded one in the
/// simulation, so that one seed replays one schedule.
struct JitterSource: Sendable {
    let uniform: @Sendable (ClosedRange<Double>) -> Double

    static let system = JitterSource { Double.random(in: $0) }
}
