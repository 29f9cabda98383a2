import Foundation
import Testing

@testable import ConsoleServer

/// The action runner sleeps on a `Doorbell` between passes; if a wait stopped waiting,
/// every runner would spin on the database and starve the server's threads.
@Suite("Doorbell: the action runner's sleep", .timeLimit(.minutes(3)))
struct DoorbellTests {
    private func seconds(_ body: () async -> Void) async -> Double {
        let start = ContinuousClock.now
        await body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test("a wait that timed out does not make later waits return at once")
    func timeoutsKeepWaiting() async {
        let doorbell = Doorbell()
        for _ in 0..<3 {
            let waited = await seconds { await doorbell.wait(atMost: .milliseconds(100)) }
            #expect(waited >= 0.09, "waited \(waited) s of 0.1 s")
        }
    }

    @Test("a ring wakes the waiter early, also after earlier timeouts; a ring nobody heard is kept once")
    func ringWakes() async {
        let doorbell = Doorbell()
        await doorbell.wait(atMost: .milliseconds(20))
        let ringer = Task {
            try? await Task.sleep(for: .milliseconds(100))
            doorbell.ring()
        }
        // A missed ring would sleep the full 60 s; a starved machine (the whole suite on two
        // cores) has been seen to take 5 s to deliver a timely one.
        let woken = await seconds { await doorbell.wait(atMost: .seconds(60)) }
        #expect(woken < 30, "woke after \(woken) s")
        await ringer.value

        doorbell.ring()
        doorbell.ring()
        let kept = await seconds { await doorbell.wait(atMost: .seconds(60)) }
        #expect(kept < 30, "a ring before the wait returns at once, took \(kept) s")
        let afterwards = await seconds { await doorbell.wait(atMost: .milliseconds(100)) }
        #expect(afterwards >= 0.09, "two rings are one: the next wait sleeps, took \(afterwards) s")
    }

    @Test("cancelling the waiting task ends the wait")
    func cancellationEndsWait() async {
        let doorbell = Doorbell()
        let waiter = Task { await doorbell.wait(atMost: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(50))
        let took = await seconds {
            waiter.cancel()
            await waiter.value
        }
        #expect(took < 5, "cancelled wait took \(took) s")
    }
}
