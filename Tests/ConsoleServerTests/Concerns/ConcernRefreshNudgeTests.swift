import Testing

@testable import ConsoleServer

@Suite("The reasons' refresher is woken by a nudge, and otherwise waits its interval")
struct ConcernRefreshNudgeTests {
    @Test("a wait lasts its time; a nudge ends the next wait at once, and only that one")
    func nudgeEndsOneWait() async {
        let nudge = ConcernRefreshNudge()
        let clock = ContinuousClock()
        let plain = await clock.measure { await nudge.wait(seconds: 0.6) }
        #expect(plain >= .milliseconds(600), "no nudge: the whole wait")
        nudge.nudge()
        nudge.nudge()
        let woken = await clock.measure { await nudge.wait(seconds: 30) }
        // Far sooner than its 30 s; the bound leaves room for a loaded machine's scheduling.
        #expect(woken < .seconds(5), "nudged: at once (\(woken))")
        // Two nudges ask for one pass; the wait after it lasts its time again (a refresher must not spin).
        let after = await clock.measure { await nudge.wait(seconds: 0.6) }
        #expect(after >= .milliseconds(600), "\(after)")
    }

    @Test("a nudge while waiting ends the wait in seconds, not the 30 s asked for")
    func nudgeDuringAWait() async {
        let nudge = ConcernRefreshNudge()
        let clock = ContinuousClock()
        async let waited = clock.measure { await nudge.wait(seconds: 30) }
        try? await Task.sleep(for: .milliseconds(200))
        nudge.nudge()
        let took = await waited
        #expect(took < .seconds(5), "\(took)")
    }
}
