import BookCornersAPI
import Foundation
import GRDB
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// The mirror sync against the sandbox over real HTTP, its calls counted by a proxy.
/// Intervals and windows are shortened through configuration, never by sleeping long.
// One at a time: each runs a sync against real time windows, and side by side on two cores
// they starved each other past their waits.
// 10 minutes, not 3: a test's own longer limit does not lift its suite's (the shortest applies),
// and filling the whole mirror beside the suite's browsers was seen to take up to 380 s.
@Suite("Mirror: the sync service", .serialized, .timeLimit(.minutes(10)))
struct MirrorSyncTests {
    /// Signs in and lands on a page that reads nothing from the backend, so every moderation
    /// read the proxy sees is the mirror's.
    private func signIn(_ browser: Browser) async throws {
        let page = try await browser.signIn(next: "/audit")
        #expect(page.status == .seeOther && page.location == "/audit", "signed in: \(page)")
    }

    /// The mirror's own calls: pages send each staff member's address as X-Forwarded-For, the mirror does not.
    private func mirrorCalls(_ proxy: FaultingProxy) async -> [FaultingProxy.ForwardedCall] {
        await proxy.forwardedLog().filter { $0.forwardedFor == nil && BackendScope.of($0) != nil }
    }

    private func store(_ directory: TemporaryDirectory) throws -> ModerationStore {
        try ModerationStore(path: directory.path("console.sqlite"))
    }

    /// Sleeps until just after the next multiple of `window` seconds since the epoch.
    private func waitForNextWindow(_ window: Int) async throws {
        let now = Date().timeIntervalSince1970
        let left = Double(window) - now.truncatingRemainder(dividingBy: Double(window))
        try await Task.sleep(for: .milliseconds(Int(left * 1000) + 50))
    }

    // Alone it takes 3 s; beside the whole suite's browsers on two cores it was seen to take
    // 110 to 330 s, its second wait running out at 90 s in two runs of five: the waits are for
    // the mirror to finish, not a measure of its speed (docs/benchmarks.md measures that).
    @Test(
        "with nobody signed in it reads nothing; once someone is, it mirrors every library, report and photo, the summary and the statistics",
        .timeLimit(.minutes(10)))
    func fillsOnceSomeoneSignsIn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory) { sandbox, proxy, url in
            try await MirrorFixture.withConsole(
                backendURL: url, directory: directory, mirror: MirrorFixture.mirror(window: 300, reads: 600, firstPageInterval: 30)
            ) { browser in
                // setup: the console runs with nobody signed in
                try await Task.sleep(for: .seconds(1))
                // The readiness probe's public statistics aside (no session needed, none used).
                let before = await proxy.forwardedLog().filter { $0.path != "/api/v1/statistics/" }.count
                // act
                try await signIn(browser)
                let store = try store(directory)
                try await MirrorFixture.eventually("every library mirrored", timeout: .seconds(240)) {
                    let count = try await store.mirroredLibraryPage(MirrorLibraryQuery(status: nil), limit: 0, offset: { _ in 0 }).total
                    let passDone = try await store.mirrorScopeState(.libraryList).lastPassCompletedAt != nil
                    return count == 500 && passDone
                }
                try await MirrorFixture.eventually("reports, photos, summary and statistics mirrored", timeout: .seconds(240)) {
                    let reports = try await store.mirroredReports(status: nil, limit: 100, offset: 0).count
                    let photos = try await store.mirroredPhotos(status: nil, limit: 100, offset: 0).count
                    let summary = try await store.mirrorSummary()
                    let statistics = try await store.mirrorStatistics()
                    return reports == 25 && photos == 20 && summary != nil && statistics != nil
                }
                // check
                #expect(before == 0, "no backend call with a session before anyone signed in")
                #expect(try await store.mirroredLibraryPage(MirrorLibraryQuery(status: .pending), limit: 0, offset: { _ in 0 }).total == 60)
                #expect(try await store.mirrorSummary()?.pendingLibraries == 60)
                #expect(try await store.mirroredReports(status: .open, limit: 100, offset: 0).count == 14)
                let token = try await sandbox.accessToken()
                let hostile = try #require(try await store.mirroredLibraries(status: .pending, limit: 100, offset: 0).first { $0.name.contains("<script>") })
                let detail = try #require(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/\(hostile.slug)", token: token).jsonObject())
                #expect(hostile.description == detail["description"] as? String, "the full record, unescaped")
                #expect(hostile.createdAt == BackendTimestamp.parse(detail["created_at"] as? String ?? ""))
                #expect(hostile.lastConfirmedAt > hostile.createdAt)
            }
        }
    }

    @Test("in windows of 3 s and 20 reads, it never spends more than its 10 in any scope and window, and never meets a 429")
    func neverOverBudget() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limits = RateLimitPolicy(windowSeconds: 3, reads: 20)
        try await MirrorFixture.withBackend(rateLimits: limits, directory: directory) { _, proxy, url in
            try await MirrorFixture.withConsole(
                backendURL: url, directory: directory, mirror: MirrorFixture.mirror(window: 3, reads: 20, firstPageInterval: 0.5, pageSize: 10)
            ) { browser in
                // setup
                try await signIn(browser)
                // act: three windows and more
                try await Task.sleep(for: .seconds(10))
                // check
                let calls = await mirrorCalls(proxy)
                var perScopeAndWindow: [String: Int] = [:]
                for call in calls {
                    guard let scope = BackendScope.of(call) else { continue }
                    perScopeAndWindow["\(scope.rawValue) \(Int(call.arrivedAt.timeIntervalSince1970 / 3))", default: 0] += 1
                }
                let listWindows = perScopeAndWindow.filter { $0.key.hasPrefix(MirrorScope.libraryList.rawValue) }
                #expect(listWindows.count >= 3, "the library lists were read in every window: \(listWindows)")
                #expect(listWindows.values.allSatisfy { $0 <= 8 }, "never the 2 kept for decision checks: \(listWindows)")
                #expect(perScopeAndWindow.values.allSatisfy { $0 <= 10 }, "\(perScopeAndWindow.sorted { $0.key < $1.key })")
                #expect(calls.allSatisfy { $0.status == 200 }, "statuses: \(Set(calls.map(\.status)))")
            }
        }
    }

    @Test("a 429 caused by another client at the same address pauses that scope until retry_after; other scopes go on")
    func pausesOnOutsideRateLimit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 12-s windows: room for the outsider to spend the budget early, however busy the machine.
        let limits = RateLimitPolicy(windowSeconds: 12, reads: 20)
        try await MirrorFixture.withBackend(rateLimits: limits, directory: directory) { sandbox, proxy, url in
            try await MirrorFixture.withConsole(
                backendURL: url, directory: directory, mirror: MirrorFixture.mirror(window: 12, reads: 20, firstPageInterval: 2)
            ) { browser in
                // setup
                try await signIn(browser)
                let token = try await sandbox.accessToken()
                try await waitForNextWindow(12)
                let windowEnd = Date(timeIntervalSince1970: Double((Int(Date().timeIntervalSince1970) / 12 + 1) * 12))
                // act: another client at the same address spends the library lists' budget
                var outsider: [Int] = []
                while outsider.last != 429 && outsider.count < 25 {
                    outsider.append(try await sandbox.raw(.GET, "/api/v1/libraries/moderation/pending", token: token).status)
                }
                try await Task.sleep(until: .now + .milliseconds(Int(windowEnd.timeIntervalSinceNow * 1000) + 2_000))
                // check
                #expect(outsider.last == 429)
                let calls = await mirrorCalls(proxy)
                let limited = calls.filter { $0.status == 429 }
                let first429 = try #require(limited.first, "the mirror met the outsider's 429")
                #expect(limited.count == 1, "one 429, then it waited: \(limited.map(\.path))")
                let listReadsWhilePaused = calls.filter {
                    BackendScope.of($0) == .libraryList && $0.arrivedAt > first429.arrivedAt && $0.arrivedAt < windowEnd
                }
                #expect(listReadsWhilePaused.isEmpty, "no library list read until retry_after")
                // Under the whole suite's load the next pass can start seconds after the window's end.
                try await MirrorFixture.eventually("the library lists were read again after retry_after", timeout: .seconds(60)) {
                    await mirrorCalls(proxy).contains {
                        BackendScope.of($0) == .libraryList && $0.arrivedAt >= windowEnd && $0.status == 200
                    }
                }
                #expect(
                    calls.contains {
                        BackendScope.of($0) == .reportList && $0.arrivedAt > first429.arrivedAt && $0.arrivedAt < windowEnd && $0.status == 200
                    }, "reports were still read meanwhile")
                let paused = try #require(try await store(directory).backendScopePausedUntil(MirrorScope.libraryList.rawValue, now: .distantPast))
                #expect(abs(paused.timeIntervalSince(windowEnd)) <= 1.5, "paused until the window's end, as retry_after said")
            }
        }
    }

    @Test("a restart mid-pass resumes at the page it reached and leaves exactly one row per library")
    func restartMidPass() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // 4-s windows of 20 reads: the pass gets a few pages of 25 per window, so it spans several.
        let mirror = MirrorFixture.mirror(window: 4, reads: 20, firstPageInterval: 2, pageSize: 25)
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory) { _, proxy, url in
            // setup: a first run, stopped once the pass is under way
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { browser in
                try await signIn(browser)
                try await MirrorFixture.eventually("the pass is under way") { try await store(directory).mirrorScopeState(.libraryList).passNextPage > 2 }
            }
            let stoppedAt = try await store(directory).mirrorScopeState(.libraryList)
            let callsBefore = await proxy.forwardedLog().count
            // act: the same database again, the same person still signed in
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { _ in
                try await MirrorFixture.eventually("the pass completes") {
                    try await store(directory).mirrorScopeState(.libraryList).lastPassCompletedAt != nil
                }
            }
            // check
            let resumed = await proxy.forwardedLog().dropFirst(callsBefore).first {
                BackendScope.of($0) == .libraryList && $0.query.contains("status=all")
            }
            #expect(stoppedAt.passNextPage > 2 && stoppedAt.passNextPage < 20, "stopped mid-pass, at page \(stoppedAt.passNextPage) of 20")
            #expect(resumed?.query.contains("page=\(stoppedAt.passNextPage)&") == true, "resumed with \(resumed?.query ?? "no pass read")")
            #expect(try await store(directory).mirroredLibraryPage(MirrorLibraryQuery(status: nil), limit: 0, offset: { _ in 0 }).total == 500)
            let rows = try DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try Row.fetchOne(db, sql: "SELECT COUNT(*) AS rows, COUNT(DISTINCT slug) AS slugs, COUNT(goneAt) AS gone FROM mirrorLibrary")
            }
            #expect(rows?["rows"] as Int? == 500)
            #expect(rows?["slugs"] as Int? == 500)
            #expect(rows?["gone"] as Int? == 0)
            var perScopeAndWindow: [String: Int] = [:]
            for call in await mirrorCalls(proxy) {
                guard let scope = BackendScope.of(call) else { continue }
                perScopeAndWindow["\(scope.rawValue) \(Int(call.arrivedAt.timeIntervalSince1970 / 4))", default: 0] += 1
            }
            #expect(perScopeAndWindow.values.allSatisfy { $0 <= 10 }, "the restarted sync still counted the window's earlier reads: \(perScopeAndWindow)")
        }
    }

    @Test("an outage mid-pass delays it: nothing is marked gone, nothing invented, and the pass finishes once the backend is back")
    func outageMidPass() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outage = OutageSwitch()
        let mirror = MirrorFixture.mirror(window: 4, reads: 20, firstPageInterval: 2, pageSize: 25)
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory, outage: outage) { _, _, url in
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { browser in
                // setup
                try await signIn(browser)
                let store = try store(directory)
                try await MirrorFixture.eventually("the pass is under way") { try await store.mirrorScopeState(.libraryList).passNextPage > 2 }
                // act: the backend is down for two windows
                outage.isOn = true
                // A read already past the proxy may still land.
                try await Task.sleep(for: .milliseconds(500))
                let pageAtOutage = try await store.mirrorScopeState(.libraryList).passNextPage
                try await Task.sleep(for: .seconds(8))
                let pageAfterOutage = try await store.mirrorScopeState(.libraryList).passNextPage
                let countDuringOutage = try await store.mirroredLibraryPage(MirrorLibraryQuery(status: nil), limit: 0, offset: { _ in 0 }).total
                outage.isOn = false
                try await MirrorFixture.eventually("the pass completes") { try await store.mirrorScopeState(.libraryList).lastPassCompletedAt != nil }
                // the check for items the pass missed runs after it: give it a few ticks
                try await Task.sleep(for: .seconds(1))
                // check
                #expect(pageAfterOutage == pageAtOutage, "no page skipped while the backend was down")
                #expect(countDuringOutage <= 500)
                #expect(
                    try await store.mirroredLibraryPage(MirrorLibraryQuery(status: nil), limit: 0, offset: { _ in 0 }).total == 500,
                    "nothing dropped, nothing invented")
                let gone = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM mirrorLibrary WHERE goneAt IS NOT NULL")
                }
                #expect(gone == 0, "nothing marked gone")
                #expect(try await store.auditEntries(limit: 1_000).filter { $0.outcome == .observed }.isEmpty, "no change was observed")
            }
        }
    }

    @Test("while the backend does not answer, every page says since when; once it answers again, the warning goes")
    func pagesSaySinceWhenTheBackendIsSilent() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outage = OutageSwitch()
        let mirror = MirrorFixture.mirror(window: 4, reads: 20, firstPageInterval: 1, pageSize: 50)
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory, outage: outage) { _, _, url in
            try await MirrorFixture.withConsole(backendURL: url, directory: directory, mirror: mirror) { browser in
                // setup: the mirror answers pages
                try await signIn(browser)
                let store = try store(directory)
                try await MirrorFixture.eventually("the summary mirrored") { try await store.mirrorSummary() != nil }
                let before = try await browser.get("/libraries")
                #expect(!before.html.contains("has not answered"), "no warning while the backend answers")
                // act: the backend stops answering for longer than the grace period
                let lastAnswer = try #require(try await store.mirrorSummary()?.lastConfirmedAt)
                outage.isOn = true
                var silentPage: Page?
                try await MirrorFixture.eventually("the pages say the backend is silent", timeout: .seconds(40)) {
                    let page = try await browser.get("/libraries")
                    silentPage = page
                    return page.html.contains("Book Corners has not answered since")
                }
                let dashboard = try await browser.get("/")
                outage.isOn = false
                // check: the time named is the last answer's, in the layout's banner, on every mirror page
                let page = try #require(silentPage)
                #expect(page.status == .ok)
                let since = try #require(page.html.firstMatch(of: /has not answered since (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/)?.1)
                let minute = TimeInterval(60)
                let named = String(since)
                let expected = [lastAnswer, lastAnswer.addingTimeInterval(minute)].map { Self.minuteText($0) }
                #expect(expected.contains(named), "names the minute of the last answer (\(expected)), said \(named)")
                #expect(dashboard.html.contains("Book Corners has not answered since"), "the dashboard says it too")
                #expect(dashboard.html.contains(#"class="backend-status down""#), "and marks the backend as down")
                #expect(!before.html.contains(#"class="backend-status down""#))
                try await MirrorFixture.eventually("the warning goes once the backend answers", timeout: .seconds(40)) {
                    !(try await browser.get("/libraries").html.contains("has not answered"))
                }
            }
        }
    }

    /// "2026-11-23 21:04", as pages print a UTC minute.
    private static func minuteText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }

    @Test("a library deleted at the backend is marked gone only after a detail read answers 404")
    func deletedLibraryConfirmedByDetailRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try await MirrorFixture.withBackend(rateLimits: nil, directory: directory) { _, proxy, url in
            // 10-s windows of 100 reads: a pass of 10 pages fits several times in a window.
            try await MirrorFixture.withConsole(
                backendURL: url, directory: directory, mirror: MirrorFixture.mirror(window: 10, reads: 100, firstPageInterval: 2)
            ) { browser in
                // setup: a first complete pass
                try await signIn(browser)
                let store = try store(directory)
                try await MirrorFixture.eventually("a complete pass") { try await store.mirrorScopeState(.libraryList).lastPassCompletedAt != nil }
                let victim = try #require(try await store.mirroredLibraries(status: .approved, limit: 1, offset: 250).first)
                // act: the backend loses it (deleted behind everyone's back)
                try await DatabaseQueue.waiting(path: directory.path("sandbox.sqlite")).write { db in
                    try db.execute(
                        sql: "DELETE FROM report WHERE libraryId = ?; DELETE FROM photo WHERE libraryId = ?; DELETE FROM library WHERE id = ?",
                        arguments: [victim.id, victim.id, victim.id])
                }
                try await MirrorFixture.eventually("marked gone") { try await store.mirroredLibrary(slug: victim.slug) == nil }
                // check
                let detailReads = await proxy.forwardedLog().filter { $0.path.hasSuffix("/libraries/moderation/\(victim.slug)") }
                #expect(detailReads.map(\.status).contains(404), "confirmed by a detail read: \(detailReads.map(\.status))")
                #expect(try await store.mirroredLibraryPage(MirrorLibraryQuery(status: nil), limit: 0, offset: { _ in 0 }).total == 499)
                let observed = try await store.auditEntries(limit: 1_000).filter { $0.outcome == .observed }
                #expect(observed.map(\.action) == ["observed.library.deleted"], "noted once")
                #expect(observed.first?.targetSlug == victim.slug && observed.first?.statusBefore == "approved")
            }
        }
    }

    @Test(
        "a report skipped pass after pass because deletions shift the pages is confirmed by a read that would show it, never recorded as deleted; a deleted one is"
    )
    func reportSkippedByShiftingPagesIsNotGone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // After a first undisturbed pass, in each of the next three: a report arrives before its
        // first page is read (from the second of them on), and the newest is deleted before its
        // second page is read, so every later item moves back a place and the report first on
        // the second page slides onto the page already read.
        let interference = PassInterference(sandboxPath: directory.path("sandbox.sqlite"), passes: 2...4, pageSize: 10)
        try await MirrorFixture.withBackend(
            rateLimits: nil, directory: directory,
            beforeForwarding: { method, path, query in
                guard method == .get, path == "/api/v1/libraries/moderation/reports", query.contains("status=all&reason=all&") else { return }
                if query.contains("page=1&") { await interference.firstPageRead() }
                if query.contains("page=2&") { await interference.secondPageRead() }
            }
        ) { _, proxy, url in
            // 10-s windows of 100 reads a scope: the libraries' 50-page passes cannot hold the sync
            // away from the reports for long. setup: the victim stands first on the pass's second page, and is not open, so only
            // the passes over every status could ever list it
            let (victim, firstDeleted) = try await interference.chooseVictim()
            try await MirrorFixture.withConsole(
                backendURL: url, directory: directory, mirror: MirrorFixture.mirror(window: 10, reads: 200, firstPageInterval: 2, pageSize: 10)
            ) { browser in
                try await signIn(browser)
                let store = try store(directory)
                // act: a first pass, three with the pages shifting under them, and a fifth begun
                try await MirrorFixture.eventually("three passes over shifting pages", timeout: .seconds(60)) { await interference.passesStarted >= 5 }
                let reportReads = await proxy.forwardedLog().filter { $0.path.hasSuffix("/moderation/reports") }.map { "\($0.query) \($0.status)" }
                try #require(await interference.passesStarted >= 5, "the report reads: \(reportReads.suffix(30))")
                try await MirrorFixture.eventually("the report deleted in the first pass recorded as deleted") {
                    try await store.auditEntries(limit: 1_000).contains { $0.action == "observed.report.deleted" && $0.targetId == String(firstDeleted) }
                }
                // check
                #expect(await interference.victimSkipped >= 2, "the victim slid onto a page already read in more than one pass")
                let present = try await store.mirroredReports(status: nil, limit: 1_000, offset: 0).map(\.id)
                #expect(present.contains(victim), "the report skipped by the passes is still mirrored")
                let deleted = try await store.auditEntries(limit: 1_000).filter { $0.action == "observed.report.deleted" }.map(\.targetId)
                #expect(!deleted.contains(String(victim)), "no false deletion in the audit chain: \(deleted)")
                let actuallyGone = await interference.deleted.map(String.init)
                #expect(Set(deleted).isSubset(of: Set(actuallyGone)), "only reports really deleted are recorded as deleted: \(deleted) of \(actuallyGone)")
            }
        }
    }

    @Test("a library approved through the sandbox's API by another staff account shows its new status in the mirror within 30 s")
    func changeFromOutsideSeenWithinFreshnessGoal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The real backend's limits and the production policy: nothing shortened.
        try await MirrorFixture.withBackend(rateLimits: RateLimitPolicy(), directory: directory) { sandbox, proxy, url in
            try await MirrorFixture.withConsole(
                backendURL: url, directory: directory, mirror: MirrorConfiguration(tickInterval: 0.2)
            ) { browser in
                // setup: the first pass done, so only queue fronts (every 25 s) can notice the change
                try await signIn(browser)
                let store = try store(directory)
                try await MirrorFixture.eventually("the first pass done") { try await store.mirrorScopeState(.libraryList).lastPassCompletedAt != nil }
                let target = try #require(try await store.mirroredLibraries(status: .pending, limit: 1, offset: 3).first)
                let otherStaff = try await sandbox.accessToken(username: "maria")
                // act
                let approved = try await sandbox.raw(
                    .PATCH, "/api/v1/libraries/moderation/\(target.slug)", token: otherStaff, json: #"{"status": "approved"}"#)
                let changedAt = Date()
                try await MirrorFixture.eventually("the mirror shows it approved", timeout: .seconds(30)) {
                    try await store.mirroredLibrary(slug: target.slug)?.status == .approved
                }
                // check
                #expect(approved.status == 200)
                print("an outside approval reached the mirror after \(String(format: "%.1f", Date().timeIntervalSince(changedAt))) s")
                let detailReads = await proxy.forwardedLog().filter { $0.path.hasSuffix("/libraries/moderation/\(target.slug)") && $0.arrivedAt > changedAt }
                #expect(detailReads.count == 1, "the pending page no longer listed it, so one detail read learned its status")
                #expect(try await store.mirrorScopeState(.libraryList).passStartedAt == nil, "no pass was under way to find it instead")
                #expect(try await store.mirroredLibraryPage(MirrorLibraryQuery(status: .pending), limit: 0, offset: { _ in 0 }).total == 59)
            }
        }
    }
}

/// Changes the sandbox's reports while the passes in `passes` page through them: a new report
/// before each one's first page (from the second of them on), the newest deleted before its second page.
private actor PassInterference {
    private let sandboxPath: String
    private let passes: ClosedRange<Int>
    private let pageSize: Int
    private var database: DatabaseQueue?
    private var victim = 0
    private(set) var passesStarted = 0
    /// Ids deleted, in order.
    private(set) var deleted: [Int] = []
    /// Passes in which the victim stood first on the second page when the deletion moved it back onto the first.
    private(set) var victimSkipped = 0

    init(sandboxPath: String, passes: ClosedRange<Int>, pageSize: Int) {
        self.sandboxPath = sandboxPath
        self.passes = passes
        self.pageSize = pageSize
    }

    /// Makes the report first on the second page the victim, dismissed; answers it and the newest report (the first to be deleted).
    func chooseVictim() throws -> (victim: Int, newest: Int) {
        try opened().write { db in
            let order = try Int.fetchAll(db, sql: "SELECT id FROM report ORDER BY createdAt DESC, id DESC")
            try db.execute(sql: "UPDATE report SET status = 'dismissed' WHERE id = ?", arguments: [order[pageSize]])
            victim = order[pageSize]
            return (order[pageSize], order[0])
        }
    }

    func firstPageRead() {
        passesStarted += 1
        guard passesStarted > passes.lowerBound, passes.contains(passesStarted) else { return }
        try? opened().write { db in
            try db.execute(
                sql: """
                    INSERT INTO report (libraryId, createdById, reason, details, photoUrl, status, createdAt)
                    SELECT libraryId, createdById, reason, 'arrived during a pass', photoUrl, 'dismissed', strftime('%Y-%m-%d %H:%M:%f', 'now')
                    FROM report ORDER BY id LIMIT 1
                    """)
        }
    }

    func secondPageRead() {
        guard passes.contains(passesStarted) else { return }
        let outcome = try? opened().write { db -> (deleted: Int, victimAt: Int?)? in
            let order = try Int.fetchAll(db, sql: "SELECT id FROM report ORDER BY createdAt DESC, id DESC")
            guard let newest = order.first else { return nil }
            try db.execute(sql: "DELETE FROM report WHERE id = ?", arguments: [newest])
            return (newest, order.firstIndex(of: victim))
        }
        guard let outcome = outcome ?? nil else { return }
        deleted.append(outcome.deleted)
        if outcome.victimAt == pageSize { victimSkipped += 1 }
    }

    /// The sandbox's file, opened once it exists (the sandbox seeds it at start).
    private func opened() throws -> DatabaseQueue {
        if let database { return database }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let queue = try DatabaseQueue(path: sandboxPath, configuration: configuration)
        database = queue
        return queue
    }
}
