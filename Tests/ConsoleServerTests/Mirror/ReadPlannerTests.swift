import Foundation
import ModerationStore
import Testing

@testable import ConsoleServer

/// The read planner with a clock the tests hold: budgets per backend window, priorities, pauses.
@Suite("Mirror: the read planner")
struct ReadPlannerTests {
    /// The start of a backend window (a multiple of 300 s since the epoch).
    private let windowStart = Date(timeIntervalSince1970: 6_000_000 * 300)

    private func at(_ seconds: Double) -> Date { windowStart.addingTimeInterval(seconds) }

    @Test("the default policy: 50 % of 60 is 30 reads per scope and window, 6 of them kept for decision checks")
    func defaults() {
        let policy = ReadPlanner.Policy(firstPageInterval: 30)
        #expect(policy.budget == 30)
        #expect(policy.decisionReserve == 6)
        #expect(ReadPlanner.Policy(readShare: 0.25).budget == 15)
    }

    @Test("asked for far more reads than allowed, every purpose together never gets more than the budget in one window, in any scope")
    func neverOverBudget() {
        // setup
        var planner = ReadPlanner(policy: .init(firstPageInterval: 30))
        var granted: [MirrorScope: [Int: Int]] = [:]
        // act: every 100 ms for three windows, every scope asks for every purpose
        for tenth in 0..<(3 * 3_000) {
            let now = at(Double(tenth) / 10)
            for scope in MirrorScope.allCases {
                for purpose in ReadPurpose.allCases where planner.request(scope, for: purpose, at: now) == .granted {
                    granted[scope, default: [:]][planner.windowIndex(at: now), default: 0] += 1
                }
            }
        }
        // check
        for scope in MirrorScope.allCases {
            let perWindow = granted[scope, default: [:]]
            #expect(perWindow.count == 3, "\(scope): reads in each of the three windows")
            #expect(perWindow.values.allSatisfy { $0 == 30 }, "\(scope): \(perWindow)")
        }
    }

    @Test("windows are aligned to the epoch: a spent budget comes back at the next multiple of the window, not 300 s after the first read")
    func windowsAlignedToEpoch() {
        // setup: all 30 spent late in a window (decision checks may use the whole budget)
        var planner = ReadPlanner(policy: .init(firstPageInterval: 30))
        for _ in 0..<30 { _ = planner.request(.libraryDetail, for: .decisionCheck, at: at(290)) }
        // act
        let late = planner.request(.libraryDetail, for: .decisionCheck, at: at(299.9))
        let next = planner.request(.libraryDetail, for: .decisionCheck, at: at(300))
        // check
        #expect(late == .wait(until: at(300), paused: false))
        #expect(next == .granted)
    }

    @Test("no read starts in the last second of a window, where it could arrive in the next one and be counted twice")
    func windowEdge() {
        // setup
        var planner = ReadPlanner(policy: .init(firstPageInterval: 30))
        // act
        let edge = planner.request(.summary, for: .queueFront, at: at(299.2))
        let before = planner.request(.summary, for: .queueFront, at: at(298.9))
        // check
        #expect(edge == .wait(until: at(300), paused: false))
        #expect(before == .granted)
        #expect(ReadPlanner.Policy(windowSeconds: 3).windowEdgeMargin == 0.06)
    }

    @Test("reads other than decision checks leave the reserved share: queue fronts stop at 24, decision checks get the last 6")
    func decisionReserve() {
        // setup
        var planner = ReadPlanner(policy: .init(firstPageInterval: 30))
        // act: the queue front asked for every second; only the first 24 fit
        let fronts = (0..<60).filter { planner.request(.libraryList, for: .queueFront, at: at(Double($0))) == .granted }.count
        let checks = (0..<10).filter { _ in planner.reserveDecisionCheck(.libraryList, at: at(61)) == .granted }.count
        // check
        #expect(fronts == 24)
        #expect(checks == 6)
    }

    @Test("full passes get only what the queue fronts will not need before the window ends")
    func fullPassesLeaveRoomForQueueFronts() {
        // setup
        var planner = ReadPlanner(policy: .init(firstPageInterval: 30))
        // act: at the window's start, ten front reads (every 30 s) are still to come, and 6 are reserved
        let passReads = (0..<40).filter { _ in planner.request(.libraryList, for: .fullPass, at: at(0)) == .granted }.count
        // the fronts then get theirs, every 30 s
        let fronts = stride(from: 0.0, to: 300, by: 30).filter { planner.request(.libraryList, for: .queueFront, at: at($0)) == .granted }.count
        // check
        #expect(passReads == 30 - 6 - 10)
        #expect(fronts == 10)
        // a scope without queue fronts gives passes all but the reserve
        let detailReads = (0..<40).filter { _ in planner.request(.libraryDetail, for: .fullPass, at: at(0)) == .granted }.count
        #expect(detailReads == 24)
    }

    @Test("the most urgent due purpose comes first: the queue front every 30 s, pending items and passes in between")
    func priorities() {
        // setup
        var planner = ReadPlanner(policy: .init(firstPageInterval: 30))
        let wanted: Set<ReadPurpose> = [.queueFront, .pendingItems, .fullPass]
        // act and check
        #expect(planner.next(.reportList, wanted: wanted, at: at(0)) == .queueFront)
        _ = planner.request(.reportList, for: .queueFront, at: at(0))
        #expect(planner.next(.reportList, wanted: wanted, at: at(10)) == .pendingItems)
        #expect(planner.next(.reportList, wanted: [.queueFront, .fullPass], at: at(10)) == .fullPass)
        #expect(planner.next(.reportList, wanted: wanted, at: at(30)) == .queueFront)
        #expect(planner.next(.statistics, wanted: [.queueFront], at: at(0)) == nil, "statistics have no queue front")
    }

    @Test("a 429 pauses only its scope until retry_after, even past the window's end")
    func pauseUntilRetryAfter() {
        // setup
        var planner = ReadPlanner(policy: .init(firstPageInterval: 30))
        // act
        planner.pause(.photoList, until: at(320), at: at(280))
        // check
        #expect(planner.request(.photoList, for: .queueFront, at: at(281)) == .wait(until: at(320), paused: true))
        #expect(planner.request(.photoList, for: .decisionCheck, at: at(305)) == .wait(until: at(320), paused: true))
        #expect(planner.next(.photoList, wanted: [.queueFront], at: at(305)) == nil)
        #expect(planner.request(.reportList, for: .queueFront, at: at(281)) == .granted, "other scopes go on")
        #expect(planner.request(.photoList, for: .queueFront, at: at(320)) == .granted)
    }

    @Test("reads spent before a restart still count in the same window, not in the next")
    func restoredSpending() {
        // setup
        var before = ReadPlanner(policy: .init(firstPageInterval: 30))
        for second in 0..<24 { _ = before.request(.summary, for: .queueFront, at: at(Double(second))) }
        let spent = before.spendingState(.summary, at: at(30))
        // act
        var after = ReadPlanner(policy: .init(firstPageInterval: 30))
        after.restore(
            MirrorScopeState(
                scope: .summary, windowIndex: spent.windowIndex, readsSpent: spent.spent, decisionReadsSpent: spent.decisionSpent))
        // check
        #expect(spent.spent == 24)
        #expect(after.request(.summary, for: .queueFront, at: at(40)) == .wait(until: at(300), paused: false))
        #expect(after.request(.summary, for: .queueFront, at: at(300)) == .granted)
    }

    @Test("a pending sweep that always has work shares the spare reads with the full pass, read for read: a long queue never starves the pass")
    func sweepAndPassShare() {
        // setup: a queue longer than the spare reads (6 000 pending at 50 000 libraries): both always want reads
        var planner = ReadPlanner(policy: .init())
        var reads: [ReadPurpose: Int] = [:]
        // act: one window, a tick a second, as MirrorSync asks
        for second in 0..<300 {
            let now = at(Double(second))
            while let purpose = planner.next(.libraryList, wanted: [.queueFront, .pendingItems, .fullPass], at: now),
                planner.request(.libraryList, for: purpose, at: now) == .granted
            {
                reads[purpose, default: 0] += 1
            }
        }
        // check: 30 in all, 6 kept for decisions, 12 queue fronts (every 25 s), the 12 left split evenly
        #expect(reads[.queueFront] == 12, "\(reads)")
        #expect(reads[.pendingItems] == 6, "\(reads)")
        #expect(reads[.fullPass] == 6, "\(reads)")
    }

    @Test("with no pass wanted, the sweep takes every spare read")
    func sweepAloneTakesAll() {
        var planner = ReadPlanner(policy: .init())
        var sweep = 0
        for second in 0..<300 {
            let now = at(Double(second))
            while let purpose = planner.next(.libraryList, wanted: [.queueFront, .pendingItems], at: now),
                planner.request(.libraryList, for: purpose, at: now) == .granted
            {
                if purpose == .pendingItems { sweep += 1 }
            }
        }
        #expect(sweep == 12)
    }
}
