import BookCornersAPI
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sandbox
import Synchronization
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 11 item 13: staff status is asked again (auth/me) every interval, once per staff
/// member, and people who are no longer staff lose their sessions, on every page.
@Suite("Staff status is re-checked while signed in", .timeLimit(.minutes(3)))
struct StaffRecheckTests {
    @Test(
        "the background re-check's pace fits the read budget: with Book Corners' defaults five people are each asked at least once a minute, and the interval grows with the number of people"
    )
    func backgroundPaceFitsTheBudget() {
        let limits = BackendLimits()
        let share = limits.otherReads - BackendBudget.readsKeptFromRechecks
        func interval(_ people: Int) -> TimeInterval {
            BackgroundStaffRecheck.interval(people: people, readsPerWindow: share, windowSeconds: limits.windowSeconds)
        }
        #expect(interval(5) < 60, "\(interval(5))")
        #expect(interval(1) >= BackgroundStaffRecheck.shortestInterval && interval(1) < 15, "one person: about every 11 s")
        #expect(interval(10) > interval(5))
        // Within the share: people × (window / interval) asks per window never pass it.
        for people in 1...40 {
            #expect(Double(people) * Double(limits.windowSeconds) / interval(people) <= Double(share) + 0.001, "\(people) people")
        }
    }

    @Test("a demoted staff member is signed out at their next page after the interval, even on pages that never call the backend")
    func demoted() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.staffRecheckInterval = 1 }) { browser, _, directory in
            // setup
            try await browser.signIn()
            #expect(try await browser.get("/audit").status == .ok)
            // act
            try await DatabaseQueue.waiting(path: directory.path("sandbox.sqlite")).write { db in
                try db.execute(sql: "UPDATE user SET isStaff = 0 WHERE username = ?", arguments: [SeedAccounts.demoStaffUsername])
            }
            try await Task.sleep(for: .milliseconds(1_200))
            let audit = try await browser.get("/audit")
            // check
            #expect(audit.status == .seeOther, "\(audit)")
            let location = try #require(audit.location)
            #expect(location == "/sign-in?ended=notStaff")
            #expect(try await browser.get(location).contains("no longer a Book Corners staff account"))
            let rows = try await DatabaseQueue.waiting(path: directory.path("console.sqlite")).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session")
            }
            #expect(rows == 0)
            #expect(try await browser.get("/outbox").location?.hasPrefix("/sign-in") == true)
        }
    }

    @Test(
        "while Book Corners cannot be asked, pages go on for the grace past the last confirmation and decisions are recorded; after it a clear page says why, the session kept; once Book Corners answers, pages come back"
    )
    func boundedGrace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let down = Mutex(false)
        try await SandboxFixture.run(databasePath: directory.path("sandbox.sqlite")) { sandbox in
            try await FaultingProxy.run(
                to: "http://127.0.0.1:\(sandbox.port)",
                plan: { _, path, _ in down.withLock { $0 } && path.hasSuffix("auth/me") ? .answerWithoutForwarding(.serviceUnavailable) : .pass }
            ) { _, origin in
                var settings = ConsoleFixture.configuration(backendURL: try #require(URL(string: origin + "/api/v1/")), directory: directory)
                settings.staffRecheckInterval = 1
                settings.staffUnconfirmedGrace = 4
                let app = try await buildConsoleApplication(configuration: settings, logger: ConsoleFixture.quietLogger)
                try await app.test(.live) { client in
                    let browser = Browser(client: client)
                    try await browser.signIn()
                    // act: Book Corners stops answering auth/me
                    down.withLock { $0 = true }
                    try await Task.sleep(for: .milliseconds(1_500))
                    // check: within the grace, pages go on
                    #expect(try await browser.get("/audit").status == .ok)
                    try await Task.sleep(for: .seconds(4))
                    let after = try await browser.get("/audit")
                    #expect(after.status == .serviceUnavailable, "\(after)")
                    #expect(after.contains("cannot confirm that you are still staff") && after.contains("Your session is kept"))
                    // Book Corners answers again: the same session, pages again
                    down.withLock { $0 = false }
                    try await Task.sleep(for: .milliseconds(1_200))
                    #expect(try await browser.get("/audit").status == .ok)
                }
            }
        }
    }

    @Test("one auth/me per staff member per interval, however many pages are loaded at once")
    func readBudget() async throws {
        // An interval long enough that ten loads fit in it on a starved machine (all suites at
        // once, with other builds beside them: ten loads once took over 10 s).
        let interval: TimeInterval = 30
        try await ConsoleFixture.withCountedConsole(configure: { $0.staffRecheckInterval = interval }) { browser, _, proxy, _ in
            // setup: sign-in itself asks auth/me once
            try await browser.signIn()
            let signedIn = ContinuousClock.now
            let me = "/api/v1/auth/me"
            #expect(await proxy.forwarded(.get, me) == 1)
            // act: ten pages at once within the interval, then ten more after it
            try await loadInParallel("/audit", times: 10, as: browser)
            let withinInterval = await proxy.forwarded(.get, me)
            try await Task.sleep(until: signedIn + .seconds(interval) + .milliseconds(200))
            try await loadInParallel("/outbox", times: 10, as: browser)
            // check
            #expect(withinInterval == 1)
            #expect(await proxy.forwarded(.get, me) == 2)
        }
    }

    /// Loads a page `times` times at once, each on its own connection (the test client would
    /// send them one after another), with the browser's session.
    private func loadInParallel(_ path: String, times: Int, as browser: Browser) async throws {
        let origin = "http://127.0.0.1:\(try #require(browser.client.port))"
        let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<times {
                group.addTask { try await rawHTTP(.GET, origin + path, headers: [("Cookie", cookie)]).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
    }

    @Test("one session's refused tokens end only that session: another session of the same person waiting on the same check is told it is staff")
    func refusedTokensAreThatSessionsOwn() async throws {
        try await SandboxFixture.run { sandbox in
            try await BackendClient.closing(BackendClient(configuration: .init(baseURL: sandbox.baseURL))) { client in
                // setup: a good session and a revoked one of the same staff member; every call asks the backend
                let tokens = try await client.signIn(username: SeedAccounts.demoStaffUsername, password: SeedAccounts.demoStaffPassword)
                let good = StaffCredentials(accessToken: tokens.access, refreshToken: tokens.refresh)
                let revoked = StaffCredentials(accessToken: "revoked-access-token", refreshToken: "revoked-refresh-token")
                let staffId = try await client.me(good).id
                let check = StaffStatusCheck(client: client, interval: 0, logger: ConsoleFixture.quietLogger)

                // act: both ask at once, the revoked one first, a number of times
                var goodVerdicts: [StaffStatusCheck.Verdict] = []
                var revokedVerdicts: [StaffStatusCheck.Verdict] = []
                for _ in 1...8 {
                    async let revokedVerdict = check.verdict(staffId: staffId, credentials: revoked, context: CallContext())
                    async let goodVerdict = check.verdict(staffId: staffId, credentials: good, context: CallContext())
                    revokedVerdicts.append(await revokedVerdict)
                    goodVerdicts.append(await goodVerdict)
                }

                // check
                #expect(goodVerdicts.allSatisfy { $0 == .staff }, "\(goodVerdicts)")
                #expect(revokedVerdicts.contains(.refused), "\(revokedVerdicts)")
            }
        }
    }
}
