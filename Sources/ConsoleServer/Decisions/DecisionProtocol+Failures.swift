import BookCornersAPI
import Foundation
import ModerationStore

/// What the protocol decides when a call fails or the check does not find the item: the
/// runner only carries the step out (a release to `waiting` or `parked`, or a final `failed`).
extension DecisionProtocol {
    /// The runner's next step after a failure, with the words the decision's page shows.
    enum Step: Equatable, Sendable {
        /// Tried again at `until`; `holdsCalls`: Book Corners said to slow down, so this process
        /// sends nothing more of the call's kind until then either.
        case wait(until: Date, message: String, backendStatus: Int?, holdsCalls: Bool)
        /// Waits for its author to sign in again.
        case park(message: String, backendStatus: Int)
        /// Ends the decision: Book Corners refused it for good.
        case fail(message: String, backendStatus: Int?)

        /// The protocol's event the step stands for (`next(after:on:)` gives the state).
        var event: Event {
            switch self {
            case .wait(_, _, let status, _): status == 429 ? .rateLimited : .answerLost
            case .park: .sessionEnded
            case .fail: .refused
            }
        }
    }

    /// Whether a failed call proves that the PATCH it carried never acted (refused, limited, or
    /// never connected): then a later check may not take the item's state for that PATCH's doing.
    static func sendProvedNotApplied(_ error: BackendError, duringSend: Bool) -> Bool {
        duringSend && !error.writeMayHaveApplied
    }

    /// The step after `error` on `action`'s check read or PATCH. Outages wait with backoff, but
    /// never re-check before `inFlightUntil` while the PATCH may still act (I2); a 429 waits as
    /// long as Book Corners said; an ended session parks; Book Corners refusing the decision
    /// itself (404, 422, 403) is final.
    func afterFailure(
        _ error: BackendError, of action: ModerationAction, sendNotApplied: Bool, inFlightUntil: Date?, now: Date, jitter: JitterSource
    ) -> Step {
        switch error {
        case .rateLimited(let seconds):
            let until = now.addingTimeInterval(Double(seconds))
            return .wait(until: until, message: Self.slowDownMessage(until: until), backendStatus: 429, holdsCalls: true)
        case .unavailable, .unexpectedAnswer:
            let retry = retryAfterNoAnswer(attempts: action.attempts, now: now, jitter: jitter)
            if !sendNotApplied, let inFlightUntil, inFlightUntil > retry {
                return .wait(until: inFlightUntil, message: Self.notAnsweredMessage(recheckAt: inFlightUntil), backendStatus: nil, holdsCalls: false)
            }
            return .wait(until: retry, message: "\(error.staffMessage) Next try \(TeamClock.stamp(retry)).", backendStatus: nil, holdsCalls: false)
        case .sessionExpired, .invalidCredentials:
            return .park(message: "Waiting for \(action.actorUsername) to sign in again; it is sent as soon as they do.", backendStatus: 401)
        case .notFound:
            return .fail(message: "Not applied: this item no longer exists at Book Corners.", backendStatus: 404)
        case .validation(let fields):
            let details = fields.map { "\($0.location): \($0.message)" }.joined(separator: "; ")
            return .fail(message: "Not applied: Book Corners refused it (\(details)).", backendStatus: 422)
        case .notStaff:
            return .fail(message: "Not applied: Book Corners says \(action.actorUsername) is no longer staff.", backendStatus: 403)
        }
    }

    /// The step while this process holds calls back after a 429 (until `until`).
    func heldBack(until: Date) -> Step {
        .wait(until: until, message: Self.slowDownMessage(until: until), backendStatus: 429, holdsCalls: false)
    }

    private static func slowDownMessage(until: Date) -> String {
        "Book Corners asked us to slow down; next try \(TeamClock.stamp(until))."
    }

    /// The step when the check's read budget is spent until `until`: never sent unchecked, it
    /// waits for the next window as for a 429.
    func checkBudgetSpent(until: Date) -> Step {
        .wait(
            until: until,
            message:
                "Waiting to check this item at Book Corners before sending: the reads we allow ourselves are spent until \(TeamClock.stamp(until)); next try then.",
            backendStatus: nil, holdsCalls: false)
    }

    /// The step when the check did not find the item where the mirror put it (`why`, in words):
    /// it may have moved after a change made elsewhere, so it waits, longer each time, until
    /// `notFoundLimit` after it was first missed; then the decision fails. Never a conflict:
    /// nobody is known to have changed it.
    func afterNotFound(_ action: ModerationAction, why: String, notFoundLimit: TimeInterval, now: Date) -> Step {
        let since = action.notFoundSince ?? now
        let giveUpAt = since.addingTimeInterval(notFoundLimit)
        guard now < giveUpAt else {
            return .fail(
                message:
                    "Not sent: \(why), and has not since \(TeamClock.stamp(since)). It may have been deleted, or changed outside the console; look at it again and decide.",
                backendStatus: nil)
        }
        let until = min(now.addingTimeInterval(min(300, max(30, now.timeIntervalSince(since) / 2))), giveUpAt)
        return .wait(
            until: until,
            message:
                "Not sent yet: \(why). It may have moved after a change made elsewhere; the console looks again \(TeamClock.stamp(until)), and stops trying at \(TeamClock.stamp(giveUpAt)).",
            backendStatus: nil, holdsCalls: false)
    }

    /// Why a decision whose PATCH went unanswered waits: its page names the time of the re-check.
    static func notAnsweredMessage(recheckAt until: Date) -> String {
        "Book Corners has not answered; checking again at \(TeamClock.stamp(until)) so that it is not sent twice (until then Book Corners may still act on what was sent)."
    }
}
