import Foundation
import NIOCore
import TestSupport
import Testing

@testable import ConsoleServer
@testable import ModerationStore

/// A page viewed again within a moment, by the same person, while nothing changed, is answered
/// with the bytes already rendered; any commit, by this process or another, renders it anew.
@Suite("Recent pages: a copy never hides a change", .timeLimit(.minutes(3)))
struct RecentPagesTests {
    /// An audit entry as another console process on the same file would append it.
    private func appendEntry(named name: String, to directory: TemporaryDirectory) async throws {
        try await ModerationStore(path: directory.path("console.sqlite")).appendAudit(
            AuditEntry(
                recordedAt: Date(), actorId: 9, actorUsername: "amir", action: "library.approve", targetKind: "library", targetId: "4242",
                targetSlug: "slug-4242", targetName: name, statusBefore: "pending", statusAfter: "approved", reason: "",
                outcome: .applied, backendStatus: 200, requestId: "req-recent", clientAddress: "192.0.2.1", userAgent: "test",
                itemCreatedAt: nil, actionId: nil))
    }

    private func decisionKey(_ page: Page) -> String? { page.field("key") }

    @Test("a reload within the lifetime answers the same bytes (the same one-click decision key); another process's commit shows at once")
    func reloadAndOutsideCommit() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.recentPageLifetime = 60 }) { browser, _, directory in
            // setup
            try await browser.signIn()
            let first = try await browser.get("/libraries")
            // act
            let again = try await browser.get("/libraries")
            // check: rendered once (a render draws a new key)
            #expect(first.status == .ok)
            #expect(decisionKey(first) != nil)
            #expect(again.html == first.html)

            // act: another process appends an entry; the audit page, kept a moment ago, must show it
            let audit = try await browser.get("/audit")
            let hostile = "<script>alert('x')</script> كتب 📚"
            #expect(!audit.contains("كتب"))
            try await appendEntry(named: hostile, to: directory)
            let after = try await browser.get("/audit")
            // check
            // check: the new entry is listed at once (not after 60 s), escaped
            #expect(
                after.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; كتب 📚")
                    || after.contains("&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; كتب 📚"))
            #expect(!after.contains(hostile))
            let libraries = try await browser.get("/libraries")
            #expect(decisionKey(libraries) != decisionKey(first), "a commit anywhere drops every copy")
        }
    }

    @Test("a decision shows on the next view at once, with its flash once; the same page later is rendered again")
    func decisionAndFlash() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.recentPageLifetime = 60 }) { browser, _, _ in
            // setup
            try await browser.signIn()
            let list = try await browser.get("/libraries")
            let selection = try #require(list.field("item"))
            let slug = String(selection.prefix { $0 != "|" })
            let form = list.hiddenFields(ofFormPostingTo: "/libraries/bulk") + [("decision", "approve"), ("quick", "pending")]
            // act: one-click approval from the list, then the page it leads to, twice
            let decided = try await browser.post("/libraries/\(slug)/decide", form: form)
            let location = try #require(decided.location)
            let shown = try await browser.get(location)
            let reload = try await browser.get(location)
            // check: the flash is shown once, not kept in a copy
            #expect(shown.html.contains("class=\"flash\""), "\(shown.html.prefix(600))")
            #expect(!reload.html.contains("class=\"flash\""))
            #expect(decisionKey(shown) != decisionKey(list), "the list after a decision is rendered anew")
        }
    }

    @Test("two people never see each other's copy; a signed-out cookie gets sign-in, not the copy")
    func perSessionAndSignOut() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.recentPageLifetime = 60 }) { browser, _, _ in
            // setup
            try await browser.signIn()
            let other = Browser(client: browser.client)
            try await other.signIn()
            // act
            let mine = try await browser.get("/audit")
            let theirs = try await other.get("/audit")
            // check: each page carries its own session's CSRF token
            #expect(mine.csrfToken != nil && theirs.csrfToken != nil)
            #expect(mine.csrfToken != theirs.csrfToken)

            // act: sign out, then ask for the page kept a moment ago with the old cookie
            let oldCookies = browser.cookies
            let home = try await browser.get("/")
            _ = try await browser.post("/sign-out", form: [("csrf", home.csrfToken ?? "")])
            let replay = Browser(client: browser.client, cookies: oldCookies)
            let answer = try await replay.get("/audit")
            // check
            #expect(answer.status == .seeOther || answer.status == .found || answer.status == .unauthorized, "\(answer.status)")
            #expect(!answer.html.contains(mine.csrfToken ?? "-"))
        }
    }

    @Test("with a lifetime of 0 every view is rendered anew")
    func off() async throws {
        try await ConsoleFixture.withConsole(configure: { $0.recentPageLifetime = 0 }) { browser, _, _ in
            try await browser.signIn()
            let first = try await browser.get("/libraries")
            let second = try await browser.get("/libraries")
            #expect(decisionKey(first) != nil)
            #expect(decisionKey(first) != decisionKey(second))
        }
    }

    @Test("a copy past its lifetime is rendered anew; the bounds keep the newest copies")
    func lifetimeAndBounds() throws {
        // setup
        let pages = RecentPages(lifetime: .milliseconds(100), maximumCount: 2)
        let stamp = ChangeStamp(words: [1, 2, 3, 4, 5, 6])
        let start = ContinuousClock.now
        let key = { (target: String) in RecentPages.Key(session: "s", target: target) }
        // act
        pages.keep(ByteBuffer(string: "a"), for: key("/a"), stamp: stamp, at: start)
        // check
        #expect(pages.page(key("/a"), stamp: stamp, now: start + .milliseconds(50)) == ByteBuffer(string: "a"))
        #expect(pages.page(key("/a"), stamp: ChangeStamp(words: [1, 2, 3, 4, 5, 7]), now: start + .milliseconds(50)) == nil)
        #expect(pages.page(key("/a"), stamp: stamp, now: start + .milliseconds(150)) == nil)
        #expect(pages.page(key("/a"), stamp: stamp, now: start) == nil, "a copy found stale is gone")
        #expect(pages.page(RecentPages.Key(session: "t", target: "/a"), stamp: stamp, now: start) == nil)
        // act: three copies into room for two
        pages.keep(ByteBuffer(string: "1"), for: key("/1"), stamp: stamp, at: start)
        pages.keep(ByteBuffer(string: "2"), for: key("/2"), stamp: stamp, at: start + .milliseconds(1))
        pages.keep(ByteBuffer(string: "3"), for: key("/3"), stamp: stamp, at: start + .milliseconds(2))
        // check
        #expect(pages.count == 2)
        #expect(pages.page(key("/1"), stamp: stamp, now: start + .milliseconds(3)) == nil)
        #expect(pages.page(key("/3"), stamp: stamp, now: start + .milliseconds(3)) == ByteBuffer(string: "3"))
    }

    @Test("the change stamp moves with every commit, by this pool or another on the file, and not without one")
    func stampMoves() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let before = try #require(store.changeStamp())
        // act / check
        #expect(store.changeStamp() == before)
        _ = try await store.auditEntryCount()
        #expect(store.changeStamp() == before, "a read commits nothing")
        try await appendEntry(named: "elsewhere", to: directory)
        let afterOther = try #require(store.changeStamp())
        #expect(afterOther != before)
        try await store.appendAudit(
            AuditEntry(
                recordedAt: Date(), actorId: 9, actorUsername: "amir", action: "library.approve", targetKind: "library", targetId: "1",
                targetSlug: "s", targetName: "n", statusBefore: "pending", statusAfter: "approved", reason: "", outcome: .applied,
                backendStatus: 200, requestId: "r", clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil))
        #expect(store.changeStamp() != afterOther)
    }

    @Test("the header's reads are made once per session while nothing is committed, and again after any commit")
    func headerReads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let headers = RecentHeaders(lifetime: .seconds(60))
        var reads = 0
        let read = { () -> RecentHeaders.Header in
            reads += 1
            return RecentHeaders.Header(pendingActions: [], pendingActionTargets: [:], navigationCounts: nil, liveAfter: 0)
        }
        // act / check
        _ = await headers.header(session: "a", store: store, read: read)
        _ = await headers.header(session: "a", store: store, read: read)
        #expect(reads == 1, "the second view uses the copy")
        _ = await headers.header(session: "b", store: store, read: read)
        #expect(reads == 2, "another session reads its own")
        try await appendEntry(named: "elsewhere", to: directory)
        _ = await headers.header(session: "a", store: store, read: read)
        #expect(reads == 3, "a commit by another process reads it anew")
    }
}
