import Foundation
import GRDB
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 29, item 11: with another connection holding the write lock (a second console, a
/// `devices import`), page views that need no write answer at once, the session's touch included.
@Suite("Pages while another connection holds the write lock", .timeLimit(.minutes(3)))
struct HeldWriteLockTests {
    @Test("a page whose session touch falls due answers while the lock is held for 4 s, and the touch lands after")
    func touchDueUnderHeldLock() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: signed in, the last activity two minutes back (so this view's touch is due), the cache waited out
            try await browser.signIn()
            #expect(try await browser.get("/libraries").status == .ok)
            let path = directory.path("console.sqlite")
            let twoMinutesAgo = Date().addingTimeInterval(-120)
            try await DatabaseQueue.waiting(path: path).write { db in
                try db.execute(sql: "UPDATE session SET lastSeenAt = ?", arguments: [twoMinutesAgo])
            }
            try await Task.sleep(for: .milliseconds(2_200))
            let lock = try await HeldWriteLock.take(path, for: 4)

            // act: the queue, then the dashboard, while the lock is held
            let started = ContinuousClock.now
            let queue = try await browser.get("/libraries")
            let dashboard = try await browser.get("/")
            let took = ContinuousClock.now - started
            let answeredUnderLock = !lock.isReleased
            try await lock.release()

            // check: both answered in full well within the hold; the touch was stored once the lock was free
            #expect(answeredUnderLock, "both views answered before the lock was given back")
            #expect(queue.status == .ok && queue.html.contains("data-row"))
            #expect(dashboard.status == .ok)
            #expect(took < .seconds(2), "the views took \(took) under a 4-s hold")
            let store = try ModerationStore(path: path)
            try await MirrorFixture.eventually("the touch stored after the lock", timeout: .seconds(15)) {
                let sessions = try await store.recentSessions(now: Date(), activeSince: twoMinutesAgo.addingTimeInterval(60), limit: 5)
                return !sessions.isEmpty
            }
        }
    }

    @Test("a flash is shown once, by the first view, even while its consumption waits behind a held lock")
    func flashShownOnceUnderHeldLock() async throws {
        try await ConsoleFixture.withConsole { browser, _, directory in
            // setup: signed in, a flash waiting for the next page, the lock held by another connection
            try await browser.signIn()
            let path = directory.path("console.sqlite")
            let flash = "Saved: <b>not markup</b> ‏עברית 📚"
            try await DatabaseQueue.waiting(path: path).write { db in try db.execute(sql: "UPDATE session SET flash = ?", arguments: [flash]) }
            try await Task.sleep(for: .milliseconds(2_200))
            let lock = try await HeldWriteLock.take(path, for: 3)

            // act: the same page twice while the lock is held
            let first = try await browser.get("/audit")
            let second = try await browser.get("/audit")
            let answeredUnderLock = !lock.isReleased
            try await lock.release()

            // check: the first shows it (escaped), the second does not; once stored, it is gone for good
            #expect(answeredUnderLock)
            #expect(first.html.contains("Saved: &lt;b&gt;not markup&lt;/b&gt;"), "the first view shows the flash")
            #expect(!second.html.contains("not markup"), "the second view does not show it again")
            let store = try ModerationStore(path: path)
            try await MirrorFixture.eventually("the flash consumed in the database", timeout: .seconds(15)) {
                try await store.recentSessions(now: Date(), activeSince: .distantPast, limit: 5).allSatisfy { $0.flash == nil }
            }
            #expect(!(try await browser.get("/audit").html.contains("not markup")))
        }
    }
}
