import Foundation
import ModerationStore
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// `/events` over a real socket: what colleagues claim and decide, through this process or
/// another connection to the same database file, reaches an open page within a second or two,
/// in the words its row would use; behind the session, bounded, and catching up after a reconnect.
@Suite("Live queue: the event stream", .timeLimit(.minutes(3)))
struct LiveEventsTests {
    /// maria, signed in on her own browser against the same console.
    private func maria(_ browser: Browser) async throws -> Browser {
        let maria = Browser(client: browser.client)
        try await maria.signIn("maria", password: SeedAccounts.demoStaffPassword)
        return maria
    }

    private func firstClaimableLibrary(_ list: Page) throws -> String {
        let slugs = list.html.matches(of: #/formaction="/libraries/([^"/]+)/claim"/#).map { String($0.1) }
        return try #require(slugs.first, "the pending list offers “I'm reviewing this”")
    }

    private func port(_ browser: Browser) throws -> Int { try #require(browser.client.port) }

    private func item(_ event: EventStreamReader.Event, _ kind: String, _ key: String) -> Bool {
        event.name == "item" && event.data.contains(#""kind":"\#(kind)""#) && event.data.contains(#""key":"\#(key)""#)
    }

    @Test("maria's claim and then her decision reach staff's open stream within 2 s, in the row's words, with the buttons' state")
    func claimAndDecisionArrive() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup
            try await browser.signIn()
            let maria = try await maria(browser)
            let list = try await browser.get("/libraries")
            let slug = try firstClaimableLibrary(list)
            let stream = try await EventStreamReader.open(port: try port(browser), cookies: browser.cookies)
            defer { Task { await stream.close() } }
            #expect(stream.status == 200 && stream.contentType.hasPrefix("text/event-stream"))
            // act 1: maria claims it
            let page = try await maria.get("/libraries")
            _ = try await maria.post("/libraries/\(slug)/claim", form: [("csrf", page.csrfToken ?? ""), ("back", "/libraries")])
            // check 1
            let claimed = try #require(
                try await stream.first(within: .seconds(2)) { item($0, "library", slug) && $0.data.contains("maria is reviewing") },
                "the claim arrived: \(stream.received)")
            #expect(claimed.event.data.contains(#""claimedByOther":true"#) && claimed.event.data.contains(#""waiting":true"#))
            #expect(claimed.event.data.contains("maria is reviewing · 15 min left"))
            #expect(!claimed.event.id.isEmpty, "an id to resume from")
            // act 2: she approves it from its page
            let detail = try await maria.get("/libraries/\(slug)")
            let key = try #require(detail.field("key", after: "/libraries/\(slug)/decide"))
            _ = try await maria.post(
                "/libraries/\(slug)/decide", form: [("csrf", detail.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")])
            // check 2: queued or already applied, and no longer offering the buttons
            let decided = try #require(
                try await stream.first(within: .seconds(2)) {
                    item($0, "library", slug) && ($0.data.contains("Approval queued by maria") || $0.data.contains("Approved by maria"))
                }, "the decision arrived: \(stream.received)")
            #expect(decided.event.data.contains(#""waiting":false"#))
            #expect(decided.event.data.contains(#""claim":"""#), "the claim ended with the decision")
        }
    }

    @Test(
        "a decision waiting for Book Corners' next window reaches an open stream with its send time on the team's clock (12-hour, Tokyo), as the page around it reads"
    )
    func queuedTimeOnTheTeamsClock() async throws {
        let limits = RateLimitPolicy(windowSeconds: 300, reads: 10_000, writes: 1, logins: 100, refreshes: 100)
        try await ConsoleFixture.withConsole(rateLimits: limits) { browser, _, directory in
            // setup: the team reads Tokyo time on a 12-hour clock; the window's one write goes to the first approval
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let tokyo = try await store.putTeam(on: "Asia/Tokyo")
            let onCall = try await browser.get("/on-call")
            try await browser.post("/on-call/clock", form: [("csrf", onCall.csrfToken ?? ""), ("hours", "12")])
            let slugs = try await store.oldestMirroredLibraries(status: .pending, count: 2).map(\.slug)
            try #require(slugs.count == 2)
            let stream = try await EventStreamReader.open(port: try port(browser), cookies: browser.cookies)
            defer { Task { await stream.close() } }

            // act
            for slug in slugs {
                let page = try await browser.get("/libraries/\(slug)")
                let key = try #require(page.field("key", after: "/libraries/\(slug)/decide"))
                try await browser.post(
                    "/libraries/\(slug)/decide", form: [("csrf", page.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")])
            }

            // check: "sends at 9:40 PM" and Tokyo's zone, not the server's 24-hour clock
            let waiting = try #require(
                try await stream.first(within: .seconds(5)) { item($0, "library", slugs[1]) && $0.data.contains("sends at") },
                "the waiting decision arrived: \(stream.received)")
            let label = OnCallTimeText(zone: tokyo).zoneLabel(Date())
            #expect(waiting.event.data.firstMatch(of: /\d{1,2}:\d\d [AP]M/) != nil, "12-hour: \(waiting.event.data)")
            #expect(waiting.event.data.contains(" \(label)\""), "Tokyo's zone (\(label)): \(waiting.event.data)")
        }
    }

    @Test("the waiting counts the navigation shows come first on a stream, then again when a decision moves them")
    func countsFollowDecisions() async throws {
        try await ConsoleFixture.withConsole { browser, _, _ in
            // setup: the count the page was made with
            try await browser.signIn()
            let list = try await browser.get("/libraries")
            let shown = try #require(
                list.html.firstMatch(of: #/data-live-count="library">(\d+)</#).flatMap { Int($0.1) }, "the navigation's library count is marked")
            let stream = try await EventStreamReader.open(port: try port(browser), cookies: browser.cookies)
            defer { Task { await stream.close() } }
            let first = try #require(try await stream.first(within: .seconds(2)) { $0.name == "counts" }, "\(stream.received)")
            #expect(first.event.data.contains(#""library":\#(shown),"#), "the same count as the page: \(first.event.data)")
            // act: a waiting library approved from the list, as its one-click button sends it
            let slug = try firstClaimableLibrary(list)
            let detail = try await browser.get("/libraries/\(slug)")
            let key = try #require(detail.field("key", after: "/libraries/\(slug)/decide"))
            _ = try await browser.post(
                "/libraries/\(slug)/decide", form: [("csrf", detail.csrfToken ?? ""), ("key", key), ("seen", "pending"), ("decision", "approve")])
            // check: once Book Corners has it, one fewer waits, said without a reload
            let fewer = try await stream.first(within: .seconds(15)) { $0.name == "counts" && $0.data.contains(#""library":\#(shown - 1),"#) }
            #expect(fewer != nil, "the count went down by one: \(stream.received.filter { $0.name == "counts" })")
        }
    }

    @Test("the dashboard, when it opens, says of its oldest items what the lists do: a colleague's claim, a decision on its way")
    func dashboardOpensTrue() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: the two oldest pending libraries, one claimed by maria, one with a decision on its way
            try await browser.signIn()
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let oldest = try await store.oldestMirroredLibraries(status: .pending, count: 2)
            try #require(oldest.count == 2)
            _ = try await store.claim(.init(kind: .library, key: oldest[0].slug), holderId: 999_003, holderUsername: "maria", now: Date(), duration: 900)
            let staff = try #require(try await store.staffMember(username: "staff"))
            var waiting = ModerationAction(
                idempotencyKey: "dashboard-note", actorId: staff.id, actorUsername: staff.username, targetKind: .library, targetKey: oldest[1].slug,
                statusSeen: .pending, statusWanted: .approved, reason: "", requestId: "r", clientAddress: "127.0.0.1", userAgent: "", now: Date())
            waiting.state = .waiting
            waiting.nextAttemptAt = Date().addingTimeInterval(3_600)
            _ = try await store.record(waiting)
            // act
            let dashboard = try await browser.get("/")
            // check
            let claimed = dashboard.item(containing: "data-item=\"library:\(oldest[0].slug)\"")
            #expect(
                claimed.contains(">maria is reviewing · 15 min left</span>") && claimed.contains("data-claim-ends=")
                    && claimed.contains(#"data-claim-holder="maria""#), "\(claimed)")
            let queued = dashboard.item(containing: "data-item=\"library:\(oldest[1].slug)\"")
            #expect(queued.contains("Approval queued by you"), "\(queued)")
        }
    }

    @Test("a claim written through another connection to the same database file (as a second console process would) reaches the stream")
    func anotherProcessesChange() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let slug = try firstClaimableLibrary(try await browser.get("/libraries"))
            let stream = try await EventStreamReader.open(port: try port(browser), cookies: browser.cookies)
            defer { Task { await stream.close() } }
            // act: another connection, another writer
            let other = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await other.claim(.init(kind: .library, key: slug), holderId: 999, holderUsername: "jonas", now: Date(), duration: 600)
            // check
            let arrived = try await stream.first(within: .seconds(2)) { item($0, "library", slug) && $0.data.contains("jonas is reviewing · 10 min left") }
            #expect(arrived != nil, "\(stream.received)")
            await stream.close()
        }
    }

    @Test(
        "behind the session: none leads to sign-in; a fifth stream of one session is refused (429), a closed one frees its place at once; a reconnect with Last-Event-ID gets what it missed"
    )
    func boundedAndResumable() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            try await browser.signIn()
            let port = try port(browser)
            // no session
            let anonymous = try await EventStreamReader.open(port: port, cookies: [:])
            #expect(anonymous.status == 401, "no stream, and no sign-in page for a script to read")
            await anonymous.close()
            // four at most per session
            var open: [EventStreamReader] = []
            for _ in 0..<4 { open.append(try await EventStreamReader.open(port: port, cookies: browser.cookies)) }
            #expect(open.allSatisfy { $0.status == 200 })
            let fifth = try await EventStreamReader.open(port: port, cookies: browser.cookies)
            #expect(fifth.status == 429, "too many for this session, said as such")
            await fifth.close()
            // a page that goes away frees its stream at once, not at the next heartbeat (15 s)
            await open.removeLast().close()
            var replacement: EventStreamReader?
            let freedBy = ContinuousClock.now + .seconds(3)
            while replacement == nil, ContinuousClock.now < freedBy {
                let attempt = try await EventStreamReader.open(port: port, cookies: browser.cookies)
                if attempt.status == 200 { replacement = attempt } else { await attempt.close(); try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(replacement != nil, "a closed page's slot was free within 3 s")
            if let replacement { open.append(replacement) }
            // a change seen, then another while away
            let slugs = try await browser.get("/libraries").html.matches(of: #/formaction="/libraries/([^"/]+)/claim"/#).map { String($0.1) }
            let (first, second) = (try #require(slugs.first), try #require(slugs.dropFirst().first))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await store.claim(.init(kind: .library, key: first), holderId: 999, holderUsername: "jonas", now: Date(), duration: 600)
            let seen = try #require(try await open[0].first(within: .seconds(2)) { item($0, "library", first) })
            for stream in open { await stream.close() }
            _ = try await store.claim(.init(kind: .library, key: second), holderId: 999, holderUsername: "jonas", now: Date(), duration: 600)
            // act: reconnect from the last event seen, in the same session (the closed streams no longer count)
            let again = browser
            let resumed = try await EventStreamReader.open(port: port, cookies: again.cookies, lastEventID: seen.event.id)
            defer { Task { await resumed.close() } }
            // check: the change made while away comes first, without waiting for a new one
            #expect(try await resumed.first(within: .seconds(2)) { item($0, "library", second) } != nil, "\(resumed.received)")
            // a page starts its stream where it was made: its frame names the newest change
            let page = try await again.get("/libraries")
            #expect(page.contains(#"<body data-live-after="\#(try await store.lastLiveChangeID())">"#))
            // once the record no longer holds what a page missed, it is told to reload, not left stale
            try await store.pruneLiveChanges(before: Date().addingTimeInterval(60))
            let stale = try await EventStreamReader.open(port: port, cookies: again.cookies, lastEventID: seen.event.id)
            defer { Task { await stale.close() } }
            #expect(try await stale.first(within: .seconds(2)) { $0.name == "reload" } != nil, "\(stale.received)")
        }
    }

    @Test(
        "a page that stops reading is let go once a write has waited for it past the limit, freeing its place; a page that reads keeps its stream"
    )
    func stalledReaderIsLetGo() async throws {
        try await ConsoleFixture.withConsole(configure: { settings in
            settings.liveStreamsPerSession = 1
            settings.liveStreamStallLimit = .seconds(3)
        }) { browser, _, directory in
            try await browser.signIn()
            let port = try port(browser)
            let reading = try await EventStreamReader.open(port: port, cookies: try await maria(browser).cookies)
            defer { Task { await reading.close() } }
            #expect(reading.status == 200)
            // setup: staff's one stream, asked for by a connection that never reads what comes
            let cookie = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            let frozen = try await UnreadConnection.open(
                port: port, request: "GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\nAccept: text/event-stream\r\n\r\n")
            defer { Task { await frozen.close() } }
            try #require(frozen.status == 200, "the stream was opened for it")
            // it holds the session's one place
            let second = try await EventStreamReader.open(port: port, cookies: browser.cookies)
            await second.close()
            try #require(second.status == 429, "the unread stream holds the session's one place")
            // act: colleagues claim and release the queue's libraries, again and again, until what
            // the console has to tell the frozen page no longer fits in the buffers between them (on
            // loopback the kernel's send buffer grows to megabytes: a long name makes each event large)
            let colleague = "jonas" + String(repeating: "x", count: 6000)
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let slugs = try await store.oldestMirroredLibraries(status: .pending, count: 40).map(\.slug)
            try #require(slugs.count >= 10)
            var freed: EventStreamReader?
            let began = ContinuousClock.now
            while freed == nil, ContinuousClock.now - began < .seconds(90) {
                for slug in slugs {
                    _ = try await store.claim(.init(kind: .library, key: slug), holderId: 999, holderUsername: colleague, now: Date(), duration: 600)
                }
                try await Task.sleep(for: .milliseconds(250))
                for slug in slugs {
                    try await store.releaseClaim(.init(kind: .library, key: slug), holderId: 999, holderUsername: colleague, now: Date())
                }
                try await Task.sleep(for: .milliseconds(250))
                let attempt = try await EventStreamReader.open(port: port, cookies: browser.cookies)
                if attempt.status == 200 { freed = attempt } else { await attempt.close() }
            }
            // check: the frozen page's place is free again
            let replacement = try #require(freed, "a stream nobody reads is ended once a write waited 3 s for it")
            defer { Task { await replacement.close() } }
            // the page that reads was never let go: it hears the next change, as does the new stream
            let last = try #require(slugs.last)
            _ = try await store.claim(.init(kind: .library, key: last), holderId: 998, holderUsername: "ilse", now: Date(), duration: 600)
            let heard = { (event: EventStreamReader.Event) in self.item(event, "library", last) && event.data.contains("ilse is reviewing") }
            #expect(try await reading.first(within: .seconds(5), where: heard) != nil, "the reading page still follows changes")
            #expect(try await replacement.first(within: .seconds(5), where: heard) != nil)
        }
    }

    @Test("a stream ends after its lifetime, freeing its place, and the page's reconnect with its last event id misses nothing")
    func streamLifetime() async throws {
        try await ConsoleFixture.withConsole(configure: { settings in
            settings.liveStreamsPerSession = 1
            settings.liveStreamLifetime = 2
        }) { browser, _, directory in
            try await browser.signIn()
            let port = try port(browser)
            // A page starts its stream at the change it was made at.
            let list = try await browser.get("/libraries")
            let slug = try firstClaimableLibrary(list)
            let after = try #require(list.html.firstMatch(of: #/data-live-after="([0-9]+)"/#).map { String($0.1) })
            let first = try await EventStreamReader.open(port: port, cookies: browser.cookies, lastEventID: after)
            defer { Task { await first.close() } }
            try #require(try await first.first(within: .seconds(5)) { $0.name == "counts" } != nil, "the stream is open")
            let second = try await EventStreamReader.open(port: port, cookies: browser.cookies)
            await second.close()
            try #require(second.status == 429, "the first holds the session's one place")
            // act: past its lifetime, a colleague's claim wakes the stream
            try await Task.sleep(for: .milliseconds(2_500))
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            _ = try await store.claim(.init(kind: .library, key: slug), holderId: 999, holderUsername: "jonas", now: Date(), duration: 600)
            // check: the place is free within a few seconds, and the reconnect gets the claim it did not hear
            var again: EventStreamReader?
            let freedBy = ContinuousClock.now + .seconds(10)
            while again == nil, ContinuousClock.now < freedBy {
                let attempt = try await EventStreamReader.open(port: port, cookies: browser.cookies, lastEventID: after)
                if attempt.status == 200 { again = attempt } else { await attempt.close(); try await Task.sleep(for: .milliseconds(200)) }
            }
            let reconnected = try #require(again, "the stream ended after its lifetime")
            defer { Task { await reconnected.close() } }
            #expect(!first.received.contains { item($0, "library", slug) }, "the ended stream did not send it")
            #expect(try await reconnected.first(within: .seconds(5)) { item($0, "library", slug) } != nil, "\(reconnected.received)")
        }
    }
}
