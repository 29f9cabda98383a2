import BookCornersAPI
import Foundation
import Synchronization

@testable import ConsoleServer

/// Everything a simulated console process can wait on, in one place, so the scheduler knows
/// when every process has come to rest: virtual time (its sleepers, each owned by a process),
/// and the calls Book Corners' model holds until the scheduler answers them.
///
/// A process is at rest when its pass has ended, or when it waits on one call and on exactly
/// the sleepers the runner keeps beside a call (the lease's heartbeat; for a PATCH, the
/// send's deadline too). After each event the scheduler waits for that, so the next event
/// always meets the same state: one seed, one schedule.
final class SimulatedWorld: Sendable {
    /// What a sleeper belongs to: the runner (its heartbeat, a send's deadline) or the budget
    /// gate (waiting out a window's edge).
    enum SleeperRole: Sendable { case runner, gate }

    enum CallKind: Sendable { case read, patch }

    /// A call Book Corners' model holds, and how to answer it.
    struct ParkedCall: Sendable {
        let id: Int
        let process: Int
        let kind: CallKind
        let continuation: CheckedContinuation<Result<ModerationLibrary, BackendError>, Never>
    }

    private struct Sleeper {
        let id: Int
        let wake: Double
        let process: Int
        let role: SleeperRole
        let continuation: CheckedContinuation<Void, any Error>
    }

    struct ProcessState: Sendable {
        var alive = true
        var passRunning = false
        var inCall: CallKind?
    }

    private struct State {
        var now: Double = 0
        /// Sleepers and calls are numbered apart: a process's heartbeat and its pass may start a
        /// sleep and a call at once, and call numbers appear in the trace.
        var nextSleeperID = 1
        var nextCallID = 1
        var sleepers: [Int: Sleeper] = [:]
        var parked: [Int: ParkedCall] = [:]
        var cancelledSleepers: Set<Int> = []
        var cancelledCalls: Set<Int> = []
        var processes: [ProcessState] = []
        var restWaiter: CheckedContinuation<Void, Never>?
        /// How many waits for rest began: the watchdog's sign of progress.
        var restWaits = 0
        var passFailures: [String] = []
        /// The schedule is over: every wait ends at once.
        var closed = false
    }

    private let state = Mutex(State())
    let start: Date

    init(start: Date) {
        self.start = start
    }

    // MARK: Time

    /// Seconds since the schedule began.
    var now: Double { state.withLock { $0.now } }
    var date: Date { start.addingTimeInterval(now) }

    func clock(process: Int, role: SleeperRole) -> SimulatedClock {
        SimulatedClock(world: self, process: process, role: role)
    }

    func sleep(until wake: Double, process: Int, role: SleeperRole) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextSleeperID += 1 }
            return state.nextSleeperID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // After the schedule closes a sleep still waits, for its task's cancellation: a loop
                // that sleeps again at once (a lease heartbeat) must not spin.
                let resumeNow: Bool = state.withLock { state in
                    if state.cancelledSleepers.remove(id) != nil { return true }
                    state.sleepers[id] = Sleeper(id: id, wake: wake, process: process, role: role, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume(throwing: CancellationError()) }
                changed()
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledSleepers.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            changed()
        }
    }

    /// The earliest time anything waits for, among living processes' sleepers.
    func earliestWake() -> Double? {
        state.withLock { state in
            state.sleepers.values.filter { state.processes[$0.process].alive }.map(\.wake).min()
        }
    }

    /// Moves time to `time` (never back), without waking anyone.
    func advance(to time: Double) {
        state.withLock { $0.now = max($0.now, time) }
    }

    /// Wakes the earliest sleeper of a living process, moving time to its wake; false when none.
    /// One at a time, the lowest id first among equals, so the order never depends on threads.
    func wakeEarliest() -> (process: Int, role: SleeperRole)? {
        let woken = state.withLock { state -> Sleeper? in
            guard
                let first = state.sleepers.values.filter({ state.processes[$0.process].alive }).min(by: {
                    ($0.wake, $0.process, $0.id) < ($1.wake, $1.process, $1.id)
                })
            else { return nil }
            state.sleepers[first.id] = nil
            state.now = max(state.now, first.wake)
            return first
        }
        guard let woken else { return nil }
        woken.continuation.resume()
        changed()
        return (woken.process, woken.role)
    }

    // MARK: Processes

    func addProcess() -> Int {
        state.withLock { state in
            state.processes.append(ProcessState())
            return state.processes.count - 1
        }
    }

    func process(_ index: Int) -> ProcessState { state.withLock { $0.processes[index] } }
    var processCount: Int { state.withLock { $0.processes.count } }

    func setPassRunning(_ process: Int, _ running: Bool) {
        state.withLock { $0.processes[process].passRunning = running }
        changed()
    }

    /// The process stops where it is: nothing it waits on is answered or woken again (until a thaw).
    func kill(_ process: Int) {
        state.withLock { $0.processes[process].alive = false }
        changed()
    }

    /// A stopped process goes on where it stopped (a machine resumed after a pause): its sleepers
    /// wake as time says, its calls are answered again.
    func thaw(_ process: Int) {
        state.withLock { $0.processes[process].alive = true }
        changed()
    }

    // MARK: Calls

    /// Holds a call of `process` until the scheduler answers it (or its caller gives up:
    /// `onCancel` answers then).
    func park(process: Int, kind: CallKind, id: Int, onCancel: @escaping @Sendable () -> BackendError) async -> Result<ModerationLibrary, BackendError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<ModerationLibrary, BackendError>, Never>) in
                let cancelled: Bool = state.withLock { state in
                    if state.cancelledCalls.remove(id) != nil || state.closed { return true }
                    state.parked[id] = ParkedCall(id: id, process: process, kind: kind, continuation: continuation)
                    return false
                }
                if cancelled { continuation.resume(returning: .failure(onCancel())) }
                changed()
            }
        } onCancel: {
            let call = state.withLock { state -> ParkedCall? in
                guard let call = state.parked.removeValue(forKey: id) else {
                    state.cancelledCalls.insert(id)
                    return nil
                }
                return call
            }
            call?.continuation.resume(returning: .failure(onCancel()))
            changed()
        }
    }

    /// The process is in a call to Book Corners (its budget gate first, then the wait).
    func enterCall(_ process: Int, _ kind: CallKind) {
        state.withLock { $0.processes[process].inCall = kind }
        changed()
    }

    func leaveCall(_ process: Int) {
        state.withLock { $0.processes[process].inCall = nil }
        changed()
    }

    func newCallID() -> Int {
        state.withLock { state in
            defer { state.nextCallID += 1 }
            return state.nextCallID
        }
    }

    /// Answers the parked call `id`; false when it is no longer parked.
    @discardableResult
    func answer(_ id: Int, with result: Result<ModerationLibrary, BackendError>) -> Bool {
        guard let call = state.withLock({ $0.parked.removeValue(forKey: id) }) else { return false }
        call.continuation.resume(returning: result)
        changed()
        return true
    }

    func parkedCall(_ id: Int) -> ParkedCall? { state.withLock { $0.parked[id] } }
    var parkedCalls: [ParkedCall] { state.withLock { $0.parked.values.sorted { $0.id < $1.id } } }

    func notePassFailure(_ words: String) {
        state.withLock { $0.passFailures.append(words) }
    }

    var passFailures: [String] { state.withLock { $0.passFailures } }

    /// Ends the schedule: every sleeper is woken as cancelled and every held call refused (a call
    /// made later is refused at once), so that the tasks of killed processes end too; a sleep
    /// begun later waits for its task's cancellation.
    func close() {
        let (sleepers, calls) = state.withLock { state in
            state.closed = true
            for index in state.processes.indices { state.processes[index].alive = true }
            defer {
                state.sleepers = [:]
                state.parked = [:]
            }
            return (Array(state.sleepers.values), Array(state.parked.values))
        }
        for sleeper in sleepers { sleeper.continuation.resume(throwing: CancellationError()) }
        for call in calls { call.continuation.resume(returning: .failure(.unavailable(.connectionRefused))) }
    }

    // MARK: Rest

    /// Returns once every living process is at rest (see the type's comment); throws when the
    /// watchdog (`watch`) finds it waited too long, naming what did not come to rest.
    func rest() async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if Self.atRest(state) { return true }
                state.restWaiter = continuation
                state.restWaits += 1
                return false
            }
            if ready { continuation.resume() }
        }
        let stuck = state.withLock { state in Self.atRest(state) ? nil : Self.describe(state) }
        if let stuck { throw SimulationStuck(description: stuck) }
    }

    /// Ends a wait for rest that has lasted `limit` of real time, so a runner busy with something
    /// the simulation does not model fails the schedule instead of hanging the test. Runs until cancelled.
    func watch(limit: Duration = .seconds(20)) async {
        var seen = -1
        while !Task.isCancelled {
            try? await Task.sleep(for: limit)
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard state.restWaiter != nil, state.restWaits == seen else {
                    seen = state.restWaits
                    return nil
                }
                defer { state.restWaiter = nil }
                return state.restWaiter
            }
            waiter?.resume()
        }
    }

    private func changed() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.restWaiter != nil, Self.atRest(state) else { return nil }
            defer { state.restWaiter = nil }
            return state.restWaiter
        }
        waiter?.resume()
    }

    private static func atRest(_ state: State) -> Bool {
        for (index, process) in state.processes.enumerated() where process.alive {
            let sleepers = state.sleepers.values.filter { $0.process == index && $0.role == .runner }.count
            if !process.passRunning {
                guard sleepers == 0, process.inCall == nil else { return false }
                continue
            }
            guard let call = process.inCall else { return false }
            let parked = state.parked.values.contains { $0.process == index }
            let gateSleeping = state.sleepers.values.contains { $0.process == index && $0.role == .gate }
            guard parked || gateSleeping, sleepers == (call == .patch ? 2 : 1) else { return false }
        }
        return true
    }

    private static func describe(_ state: State) -> String {
        state.processes.enumerated().map { index, process in
            let sleepers = state.sleepers.values.filter { $0.process == index }.map { "\($0.role)@\($0.wake)" }
            return
                "p\(index): alive \(process.alive), pass \(process.passRunning), call \(process.inCall.map { "\($0)" } ?? "none"), parked \(state.parked.values.filter { $0.process == index }.count), sleepers \(sleepers)"
        }.joined(separator: "; ")
    }
}

/// The scheduler waited too long for the processes to come to rest: a runner is busy or
/// waiting on something the simulation does not model.
struct SimulationStuck: Error, CustomStringConvertible {
    let description: String
}

/// Virtual time as a `Clock`, for `ServiceClock` and the budget: `sleep` waits until the
/// scheduler moves time past the wake.
struct SimulatedClock: Clock {
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    let world: SimulatedWorld
    let process: Int
    let role: SimulatedWorld.SleeperRole

    var now: Instant { Instant(offset: .milliseconds(Int64((world.now * 1000).rounded()))) }
    var minimumResolution: Duration { .milliseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        try await world.sleep(until: deadline.offset.timeInterval, process: process, role: role)
    }
}
