import Synchronization

/// Wakes a sleeping worker early. A ring while nobody waits is kept (one ring, not a
/// count), so the next wait returns at once. Unlike an `AsyncStream`, whose iterator ends
/// the stream for good when its waiting task is cancelled, a wait that times out or is
/// cancelled leaves the doorbell working.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: (ticket: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextTicket: UInt64 = 0
    }

    private let state = Mutex(State())
    /// What a wait's timeout is measured on.
    private let clock: ServiceClock

    init(clock: ServiceClock = .system) {
        self.clock = clock
    }

    func ring() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil as CheckedContinuation<Void, Never>?
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns when rung, after `timeout`, or when the task is cancelled, whichever is first.
    /// One waiter at a time.
    func wait(atMost timeout: Duration) async {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let returnNow = state.withLock { state in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = (ticket, continuation)
                    return false
                }
                if returnNow {
                    continuation.resume()
                    return
                }
                Task { [weak self, clock] in
                    try? await clock.sleep(for: timeout)
                    self?.release(ticket)
                }
            }
        } onCancel: {
            release(ticket)
        }
    }

    /// Ends the wait holding `ticket`, if it is still the one waiting.
    private func release(_ ticket: UInt64) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter, waiter.ticket == ticket else { return nil as CheckedContinuation<Void, Never>? }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }
}
