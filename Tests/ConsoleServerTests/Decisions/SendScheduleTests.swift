import BookCornersAPI
import Foundation
import ModerationStore
import ModerationVocabulary
import Testing

@testable import ConsoleServer

/// The panel's "13 waiting: 10 at 21:35, 3 at 21:40" is the budget's own arithmetic: per kind,
/// at most 10 sends a window, in the runners' order, none while a 429's pause lasts.
@Suite("Pending actions: when each decision should be sent")
struct SendScheduleTests {
    private let limits = BackendLimits(windowSeconds: 300, writes: 10)
    private let now = Date(timeIntervalSince1970: 1_795_032_000 + 120)  // 2 min into a window (20:00–20:05 UTC)
    private var windowEnd: Date { Date(timeIntervalSince1970: 1_795_032_000 + 300) }

    private func actions(
        _ count: Int, kind: ModerationAction.TargetKind = .library, state: ModerationAction.State = .waiting, due: Date, from first: Int64 = 1
    )
        -> [ModerationAction]
    {
        (0..<count).map { index in
            var action = ModerationAction(
                idempotencyKey: "k\(kind)\(first + Int64(index))", actorId: 1, actorUsername: "maria", targetKind: kind, targetKey: "item-\(index)",
                statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "", clientAddress: "", userAgent: "", now: now)
            action.id = first + Int64(index)
            action.state = state
            action.nextAttemptAt = due
            return action
        }
    }

    @Test("13 waiting for the next window, which takes 10: ten then, three in the window after")
    func thirteenAcrossTwoWindows() {
        let waiting = actions(13, due: windowEnd)
        let expected = SendSchedule(limits: limits).expectedSends(
            of: waiting, kinds: [.library: .init(spentThisWindow: 10)], now: now)
        let times = waiting.compactMap { $0.id.flatMap { expected[$0] } }
        #expect(times.filter { $0 == windowEnd }.count == 10)
        #expect(times.filter { $0 == windowEnd.addingTimeInterval(300) }.count == 3)
        #expect(Array(times.prefix(10)).allSatisfy { $0 == windowEnd }, "in the runners' order: the first ten first")
        let shown = waiting.map { action in
            var shown = action
            shown.nextAttemptAt = expected[action.id ?? 0] ?? action.nextAttemptAt
            return shown
        }
        #expect(PendingSummary(shown, now: now).text == "13 waiting: 10 at 20:05 UTC, 3 at 20:10 UTC")
    }

    @Test("what this window has left goes now; kinds do not share; a parked one has no time; a paused kind waits for its pause")
    func spentPausedAndParked() {
        let due = actions(8, state: .queued, due: now)
        let reports = actions(3, kind: .report, due: now, from: 100)
        let parked = actions(1, state: .parked, due: now, from: 200)
        let photos = actions(2, kind: .photo, due: now, from: 300)
        let pause = now.addingTimeInterval(42)
        let expected = SendSchedule(limits: limits).expectedSends(
            of: due + reports + parked + photos,
            kinds: [.library: .init(spentThisWindow: 4), .report: .init(spentThisWindow: 9), .photo: .init(pausedUntil: pause)], now: now)
        #expect(due.compactMap { expected[$0.id ?? 0] }.filter { $0 == now }.count == 6, "six of this window's ten are left")
        #expect(due.compactMap { expected[$0.id ?? 0] }.filter { $0 == windowEnd }.count == 2)
        #expect(reports.compactMap { expected[$0.id ?? 0] } == [now, windowEnd, windowEnd], "reports have their own ten")
        #expect(expected[200] == nil, "held for its author")
        #expect(photos.compactMap { expected[$0.id ?? 0] } == [pause, pause])
    }

    @Test("the list's rows and the panel say the same times: the 11th and 12th of twelve waiting for one window send in the next")
    func rowsAndPanelAgree() async throws {
        // Writes budgeted as in production (the fixture leaves them to the backend's 429s).
        try await ConsoleFixture.withConsole(configure: { $0.backendLimits = BackendLimits() }) { browser, _, directory in
            // setup: twelve approvals of the oldest pending libraries, all first tried at one window's start an hour ahead
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let staff = try #require(try await store.staffMember(username: "staff"))
            let libraries = try await store.oldestMirroredLibraries(status: .pending, count: 12)
            try #require(libraries.count == 12)
            let window = (Date().timeIntervalSince1970 / 300).rounded(.down) * 300 + 12 * 300
            let first = Date(timeIntervalSince1970: window), second = Date(timeIntervalSince1970: window + 300)
            for (index, library) in libraries.enumerated() {
                var action = ModerationAction(
                    idempotencyKey: "schedule-\(index)", actorId: staff.id, actorUsername: staff.username, targetKind: .library, targetKey: library.slug,
                    statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: Date())
                action.state = .waiting
                action.nextAttemptAt = first
                _ = try await store.record(action)
            }
            // act
            let list = try await browser.get("/libraries?page_size=50")
            // check
            let now = Date()
            let panel = Page.text(of: list.html.firstMatch(of: #/<summary><strong>Pending actions.*</summary>/#).map { String($0.0) } ?? "")
                .replacingOccurrences(of: " ,", with: ",")
            #expect(
                panel.contains("12 waiting: 10 at \(TeamClock.shortStamp(first, now: now)), 2 at \(TeamClock.shortStamp(second, now: now))"),
                "\(panel)")
            for (index, library) in libraries.enumerated() {
                let row = list.item(containing: "data-item=\"library:\(library.slug)\"")
                let expected = TeamClock.shortStamp(index < 10 ? first : second, now: now)
                #expect(row.contains(expected), "row \(index + 1) sends at \(expected)")
            }
        }
    }
}
