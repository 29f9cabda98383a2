import BookCornersAPI
import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The backend budget kept in the database: two budgets on one file stand for two console
/// processes (each opens the file itself), and whatever either claims the other sees.
@Suite("Backend budget: one per database")
struct BackendBudgetTests {
    /// The middle of a backend window, so no claim falls in a window's last moment.
    private static let midWindow = Date(timeIntervalSince1970: 1_800_000_150)

    private func budgets(
        _ directory: TemporaryDirectory, limits: BackendLimits = BackendLimits(), watcherBudget: Int = 12, now: Date = midWindow
    ) throws -> [BackendBudget] {
        try (0..<2).map { _ in
            BackendBudget(
                store: try ModerationStore(path: directory.path("console.sqlite")), limits: limits,
                mirrorPolicy: ReadPlanner.Policy(windowSeconds: limits.windowSeconds, backendLimit: limits.reads), watcherBudget: watcherBudget,
                logger: ConsoleFixture.quietLogger, now: { now })
        }
    }

    @Test("writes, sign-ins and refreshes asked of two processes in turn are granted up to the backend's limit between them, not each")
    func limitsSharedByProcesses() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pair = try budgets(directory)
        for (endpoint, limit) in [
            (BackendEndpoint(method: .PATCH, path: "libraries/moderation/some-slug"), 10),
            (BackendEndpoint(method: .POST, path: "auth/login"), 10),
            (BackendEndpoint(method: .POST, path: "auth/refresh"), 15),
        ] {
            var granted = 0
            for turn in 0..<40 {
                // Sign-ins from remembered browsers and from anyone else, in turn: ten between them.
                let budget = turn % 4 < 2 ? CallBudget.standard : BackendBudget.signInCall(remembered: true, addressGroup: "203.0.113.1")
                if await pair[turn % 2].admit(endpoint, budget: budget) == nil { granted += 1 }
            }
            #expect(granted == limit, "\(endpoint.scope): \(granted)")
        }
    }

    @Test("a call asked for in a window's last second waits for the next window and is counted there; in mid-window it goes at once")
    func lastMomentWaitsForTheNextWindow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        // 300-s windows: no attempt starts in a window's last second. Half a second is left here.
        let clock = MovableWallClock(Self.midWindow.addingTimeInterval(149.5))
        let slept = MovableWallClock(Date(timeIntervalSince1970: 0))
        let limits = BackendLimits()
        let budget = BackendBudget(
            store: store, limits: limits, mirrorPolicy: ReadPlanner.Policy(windowSeconds: limits.windowSeconds, backendLimit: limits.reads),
            watcherBudget: 0, logger: ConsoleFixture.quietLogger, now: { clock.now },
            sleep: { duration in
                let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
                slept.advance(by: seconds)
                clock.advance(by: seconds)
            })
        let lastWindow = budget.windowIndex(at: clock.now)
        let me = BackendEndpoint(method: .GET, path: "auth/me")
        let login = BackendEndpoint(method: .POST, path: "auth/login")

        #expect(await budget.admit(login, budget: .standard) == nil, "a sign-in is not refused for the moment it came in")
        #expect((0.5...0.51).contains(slept.now.timeIntervalSince1970), "it waited for the next window: \(slept.now.timeIntervalSince1970) s")
        #expect(budget.windowIndex(at: clock.now) == lastWindow + 1)
        #expect(await budget.admit(me, budget: .standard) == nil)
        #expect(slept.now.timeIntervalSince1970 < 0.52, "in the new window's first moments nothing waits")

        for (scope, pool) in [("api-auth-login", BackendBudget.signInPool), ("api-auth-me", BackendBudget.readPool)] {
            #expect(
                try await store.backendBudgetSpending(scope: scope, pool: pool, windowIndex: lastWindow).spent == 0,
                "\(scope): none counted in the ending window")
            #expect(
                try await store.backendBudgetSpending(scope: scope, pool: pool, windowIndex: lastWindow + 1).spent == 1,
                "\(scope): counted in the window it went in")
        }
    }

    @Test(
        "I5: a call granted late in a window, which Book Corners may count in the next (a queue in front of it), is charged to both; the next window then grants only what is left"
    )
    func lateCallChargedToEveryWindowItMayLandIn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let limits = BackendLimits(writes: 3)
        let windowEnd = Date(timeIntervalSince1970: 1_800_000_300)
        let clock = MovableWallClock(windowEnd.addingTimeInterval(-30))
        let budget = BackendBudget(
            store: store, limits: limits, mirrorPolicy: ReadPlanner.Policy(windowSeconds: limits.windowSeconds, backendLimit: limits.reads),
            watcherBudget: 0, logger: ConsoleFixture.quietLogger, now: { clock.now }, countSpan: 100)
        let patch = BackendEndpoint(method: .PATCH, path: "libraries/moderation/corner")
        let window = budget.windowIndex(at: clock.now)

        // act: three writes 30 s before the window ends, then one as the next window begins
        for _ in 0..<3 { #expect(await budget.admit(patch, budget: .standard) == nil) }
        clock.advance(by: 31)
        let refused = await budget.admit(patch, budget: .standard)

        // check: each of the three was counted in both windows, so the next window had none left
        for index in [window, window + 1] {
            #expect(try await store.backendBudgetSpending(scope: patch.scope, pool: BackendBudget.writePool, windowIndex: index).spent == 3)
        }
        #expect(refused != nil, "a fourth write in the next window would be Book Corners' fourth there")
    }

    @Test(
        "I5, searched: two processes asking in a seeded random order (mirror reads with tickets, checks, retries, watcher reads, writes, sign-ins), each granted attempt landing anywhere in its count span: no window at the backend counts more than its limit"
    )
    func noWindowOverspentWhereverCallsLand() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // SIM_SEED replays a failing order.
        let seed = ProcessInfo.processInfo.environment["SIM_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
        let random = SimulationRandom(seed: seed)
        let limits = BackendLimits()
        let countSpan: TimeInterval = 100
        let clock = MovableWallClock(Self.midWindow)
        let pair = try (0..<2).map { _ in
            BackendBudget(
                store: try ModerationStore(path: directory.path("console.sqlite")), limits: limits,
                mirrorPolicy: ReadPlanner.Policy(windowSeconds: limits.windowSeconds, backendLimit: limits.reads), watcherBudget: 12,
                logger: ConsoleFixture.quietLogger, now: { clock.now }, sleep: { _ in }, countSpan: countSpan)
        }
        let photos = BackendEndpoint(method: .GET, path: "libraries/moderation/photos")
        let me = BackendEndpoint(method: .GET, path: "auth/me")
        let patch = BackendEndpoint(method: .PATCH, path: "libraries/moderation/photos/7")
        let login = BackendEndpoint(method: .POST, path: "auth/login")
        // Where Book Corners counts each attempt it was sent: (scope, its window there).
        var landed: [String: [Int: Int]] = [:]
        func sent(_ endpoint: BackendEndpoint) {
            let arrival = clock.now.addingTimeInterval(random.seconds(0...countSpan))
            landed[endpoint.scope, default: [:]][pair[0].windowIndex(at: arrival), default: 0] += 1
        }

        for _ in 0..<1500 {
            clock.advance(by: random.seconds(0...4))
            let process = pair[random.int(0...1)]
            switch random.int(0...5) {
            case 0:
                guard case .granted(let budget) = await process.claimMirror(.photoList, headroom: random.int(0...3), at: clock.now) else { break }
                if await process.admit(photos, budget: budget) == nil { sent(photos) }
                // A re-send after a token refresh rides on no ticket.
                if random.chance(0.3), await process.admit(photos, budget: budget) == nil { sent(photos) }
            case 1:
                guard case .granted(let budget) = await process.reserveDecisionCheck(.photoList, at: clock.now) else { break }
                if await process.admit(photos, budget: budget) == nil { sent(photos) }
            case 2:
                guard case .granted(let budget) = await process.claimWatcher(.photoList, at: clock.now) else { break }
                if await process.admit(photos, budget: budget) == nil { sent(photos) }
            case 3:
                if await process.admit(patch, budget: .standard) == nil { sent(patch) }
            case 4:
                if await process.admit(login, budget: .standard) == nil { sent(login) }
            default:
                if await process.admit(me, budget: .standard) == nil { sent(me) }
            }
        }

        let limit = [photos.scope: limits.reads, me.scope: limits.reads, patch.scope: limits.writes, login.scope: limits.signIns]
        for (scope, windows) in landed {
            let worst = windows.values.max() ?? 0
            #expect(worst <= limit[scope] ?? 0, "seed \(seed): \(scope) counted \(worst) in one window")
        }
        #expect((landed[photos.scope]?.values.max() ?? 0) > limits.reads / 3, "seed \(seed): the search reached the read limit's neighbourhood")
    }

    @Test(
        "sign-ins: strangers' attempts spend at most the share not kept for remembered browsers, two per address (an IPv6 /64 counts as one address), and remembered browsers always have theirs, across processes"
    )
    func signInSharesKeptFromStrangers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pair = try budgets(directory)
        let login = BackendEndpoint(method: .POST, path: "auth/login")
        var strangers = 0
        for (turn, address) in ["203.0.113.1", "203.0.113.2", "2001:db8:1:2::1", "2001:db8:1:2::ffff", "2001:db8:1:2:aaaa::7", "203.0.113.3"]
            .flatMap({ [$0, $0, $0] }).enumerated()
        {
            let call = BackendBudget.signInCall(remembered: false, addressGroup: IPAddress.group(of: address))
            if await pair[turn % 2].admit(login, budget: call) == nil { strangers += 1 }
        }
        #expect(strangers == 4, "ten sign-ins, six kept: four for everyone else")
        #expect(IPAddress.group(of: "2001:db8:1:2::ffff") == "2001:db8:1:2::/64" && IPAddress.group(of: "203.0.113.7") == "203.0.113.7")
        var remembered = 0
        for turn in 0..<10 where await pair[turn % 2].admit(login, budget: BackendBudget.signInCall(remembered: true, addressGroup: "203.0.113.1")) == nil {
            remembered += 1
        }
        #expect(remembered == 6, "the kept share, and nothing of Book Corners' ten beyond it")
    }

    @Test("the watcher's reads from two processes stay within its one share per scope and window")
    func watcherShared() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pair = try budgets(directory, watcherBudget: 12)
        var granted = 0
        for attempt in 0..<30 where await pair[attempt % 2].claimWatcher(.reportList, at: Self.midWindow).isGranted { granted += 1 }
        #expect(granted == 12)
        #expect(await pair[0].watcherAvailable(.reportList, at: Self.midWindow) == 0)
        #expect(await pair[1].watcherAvailable(.reportList, at: Self.midWindow) == 0)
        #expect(await pair[1].claimWatcher(.reportList, at: Self.midWindow.addingTimeInterval(300)).isGranted, "a new window, a new share")
    }

    @Test("the mirror of one process leaves the decision reserve to the checks of any process, and a check's first read spends what was reserved")
    func reserveKeptAcrossProcesses() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 60 reads, half for the console: 30, of which 6 kept for decision checks.
        let pair = try budgets(directory)
        var mirrorReads = 0
        while await pair[0].claimMirror(.photoList, headroom: 0, at: Self.midWindow).isGranted { mirrorReads += 1 }
        var checks: [CallBudget] = []
        while case .granted(let check) = await pair[1].reserveDecisionCheck(.photoList, at: Self.midWindow) { checks.append(check) }
        #expect(mirrorReads == 24 && checks.count == 6)
        let list = BackendEndpoint(method: .GET, path: "libraries/moderation/photos")
        let check = try #require(checks.first)
        // A ticket pays only in its own scope: a reports read under it is counted in the reports'
        // share, and the ticket still pays for the photos read.
        #expect(await pair[1].admit(BackendEndpoint(method: .GET, path: "libraries/moderation/reports"), budget: check) == nil)
        #expect(await pair[1].admit(list, budget: check) == nil, "the check's first attempt spends what was reserved for it")
        #expect(await pair[1].admit(list, budget: check) != nil, "its retry is claimed anew, and nothing is left")
        #expect(await pair[0].admit(list, budget: .standard) != nil, "nothing reserved for that call, and nothing left")
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let spent = try await store.backendBudgetSpending(
            scope: MirrorScope.photoList.rawValue, pool: BackendBudget.mirrorPool, windowIndex: pair[0].windowIndex(at: Self.midWindow))
        #expect(spent == BudgetSpending(spent: 30, reserveSpent: 6))
    }

    @Test("every HTTP attempt is counted, the client's retries included, and a 429's retry_after holds for every process")
    func attemptsCountedAndRetryAfterHonoured() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The sandbox allows two reads an hour; the budget more, so the sandbox says 429 first.
        try await SandboxFixture.run(rateLimits: RateLimitPolicy(windowSeconds: 3600, reads: 2)) { sandbox in
            try await FaultingProxy.run(
                to: "http://127.0.0.1:\(sandbox.port)",
                plan: { method, path, call in path == "/api/v1/auth/me" && call <= 2 ? .answerWithoutForwarding(.serviceUnavailable) : .pass }
            ) { proxy, origin in
                let url = try #require(URL(string: origin + "/api/v1/"))
                let limits = BackendLimits(windowSeconds: 3600, reads: 100)
                let store = try ModerationStore(path: directory.path("console.sqlite"))
                let budget = BackendBudget(
                    store: store, limits: limits, mirrorPolicy: ReadPlanner.Policy(windowSeconds: 3600, backendLimit: 100), watcherBudget: 0,
                    logger: ConsoleFixture.quietLogger)
                let other = BackendBudget(
                    store: try ModerationStore(path: directory.path("console.sqlite")), limits: limits,
                    mirrorPolicy: ReadPlanner.Policy(windowSeconds: 3600, backendLimit: 100), watcherBudget: 0, logger: ConsoleFixture.quietLogger)
                let retrying = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(20))
                let client = BackendClient(configuration: .init(baseURL: url, readRetry: retrying, gate: budget), logger: ConsoleFixture.quietLogger)
                try await BackendClient.closing(client) { client in
                    // act: a sign-in, then auth/me answered 503, 503, 200
                    let tokens = try await client.signIn(username: "staff", password: SeedAccounts.demoStaffPassword)
                    let credentials = StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
                    _ = try await client.me(credentials)
                    let window = budget.windowIndex(at: Date())
                    let meAttempts = try await store.backendBudgetSpending(scope: "api-auth-me", pool: BackendBudget.readPool, windowIndex: window)
                    let signIns = try await store.backendBudgetSpending(scope: "api-auth-login", pool: BackendBudget.signInPool, windowIndex: window)
                    // the sandbox's two reads: one above, the next answered 429
                    _ = try? await client.me(credentials)
                    var limited: (any Error)?
                    do { _ = try await client.me(credentials) } catch { limited = error }
                    let reachedBeforeLast = await proxy.forwarded(.get, "/api/v1/auth/me")
                    do { _ = try await client.me(credentials) } catch { limited = error }
                    // check
                    #expect(meAttempts.spent == 3, "two 503s and the answer: three attempts, three counted")
                    #expect(signIns.spent == 1)
                    guard case .rateLimited = limited as? BackendError else { Issue.record("expected to wait, got \(String(describing: limited))"); return }
                    #expect(await proxy.forwarded(.get, "/api/v1/auth/me") == reachedBeforeLast, "nothing sent while the backend's retry_after runs")
                    let paused = try #require(try await store.backendScopePausedUntil("api-auth-me", now: Date()))
                    #expect(paused > Date(), "paused as long as the backend said")
                    let me = BackendEndpoint(method: .GET, path: "auth/me")
                    #expect(await other.admit(me, budget: .standard) != nil, "another process waits too")
                }
            }
        }
    }
}
