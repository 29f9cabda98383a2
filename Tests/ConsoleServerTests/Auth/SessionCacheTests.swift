import BookCornersAPI
import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// A page view within a moment of the last one finds its session in memory, not in SQLite;
/// sign-out, revocation, the idle timeout and flashes behave as if every view read the database.
@Suite("Sessions: the in-memory copy never outlives what ends a session", .timeLimit(.minutes(3)))
struct SessionCacheTests {
    private let account = Account(id: 7, username: "staff", email: "staff@example.com", isSocialOnly: false, isStaff: true)

    /// A store and a session manager whose copies last `cacheLifetime` (long, so a test sees the copy at work).
    private func manager(
        _ directory: TemporaryDirectory, idleTimeout: TimeInterval = 30 * 60, cacheLifetime: TimeInterval = 3_600
    ) throws
        -> (ModerationStore, StaffSessions)
    {
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let sessions = StaffSessions(
            store: store, sealer: try TokenSealer(key: Data(repeating: 3, count: 32)), idleTimeout: idleTimeout, lifetime: 12 * 3_600,
            logger: ConsoleFixture.quietLogger, cacheLifetime: cacheLifetime)
        return (store, sessions)
    }

    private func isActive(_ lookup: StaffSessions.Lookup) -> Bool {
        if case .active = lookup { return true }
        return false
    }

    private func flash(_ lookup: StaffSessions.Lookup) -> String? {
        if case .active(_, let flash, _) = lookup { return flash }
        return nil
    }

    @Test("a second view within the copy's lifetime reads no session from the database: a row changed behind it is not seen")
    func copyServesViews() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup
        let (store, sessions) = try manager(directory)
        let (cookie, session) = try await sessions.start(account: account, tokens: TokenPair(access: "a", refresh: "r"), clientAddress: "", userAgent: "")
        let now = Date()
        #expect(isActive(try await sessions.lookup(cookie: cookie, now: now)))
        // act: another process deletes the row
        try await store.deleteSession(id: session.id)
        let within = try await sessions.lookup(cookie: cookie, now: now.addingTimeInterval(1))
        let after = try await sessions.lookup(cookie: cookie, now: now.addingTimeInterval(3_601))
        // check: served from the copy until its lifetime ends, then the row's absence counts
        #expect(isActive(within))
        if case .none = after {} else { Issue.record("a session deleted elsewhere is refused once the copy expires: \(after)") }
    }

    @Test("signing out ends the session at once, copy or not")
    func signOutAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, sessions) = try manager(directory)
        let (cookie, session) = try await sessions.start(account: account, tokens: TokenPair(access: "a", refresh: "r"), clientAddress: "", userAgent: "")
        let now = Date()
        #expect(isActive(try await sessions.lookup(cookie: cookie, now: now)))
        // act
        try await sessions.end(sessionID: session.id)
        let next = try await sessions.lookup(cookie: cookie, now: now.addingTimeInterval(0.1))
        // check
        if case .none = next {} else { Issue.record("signed out, yet \(next)") }
    }

    @Test("someone no longer staff loses every session at once, copies included")
    func revocationAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, sessions) = try manager(directory)
        let (first, _) = try await sessions.start(account: account, tokens: TokenPair(access: "a", refresh: "r"), clientAddress: "", userAgent: "")
        let (second, _) = try await sessions.start(account: account, tokens: TokenPair(access: "a", refresh: "r"), clientAddress: "", userAgent: "")
        let now = Date()
        #expect(isActive(try await sessions.lookup(cookie: first, now: now)))
        #expect(isActive(try await sessions.lookup(cookie: second, now: now)))
        // act
        try await sessions.endAll(staffId: account.id)
        // check
        #expect(!isActive(try await sessions.lookup(cookie: first, now: now.addingTimeInterval(0.1))))
        #expect(!isActive(try await sessions.lookup(cookie: second, now: now.addingTimeInterval(0.1))))
    }

    @Test("the idle timeout is checked against the stored last view even when the copy serves the request")
    func idleTimeoutWithCopy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, sessions) = try manager(directory, idleTimeout: 30)
        let start = Date()
        let (cookie, _) = try await sessions.start(
            account: account, tokens: TokenPair(access: "a", refresh: "r"), clientAddress: "", userAgent: "", now: start)
        #expect(isActive(try await sessions.lookup(cookie: cookie, now: start.addingTimeInterval(1))))
        // act: 31 s of silence, the copy (an hour's lifetime here) still held
        let late = try await sessions.lookup(cookie: cookie, now: start.addingTimeInterval(32))
        // check
        if case .expired = late {} else { Issue.record("idle past the timeout, yet \(late)") }
    }

    @Test("a flash set after the copy was made is shown on the next view, once")
    func flashOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (_, sessions) = try manager(directory)
        let (cookie, session) = try await sessions.start(account: account, tokens: TokenPair(access: "a", refresh: "r"), clientAddress: "", userAgent: "")
        let now = Date()
        #expect(flash(try await sessions.lookup(cookie: cookie, now: now)) == nil)
        // act
        try await sessions.flash("Approved: Corner Books.", sessionID: session.id)
        let shown = try await sessions.lookup(cookie: cookie, now: now.addingTimeInterval(0.1))
        let again = try await sessions.lookup(cookie: cookie, now: now.addingTimeInterval(0.2))
        // check
        #expect(flash(shown) == "Approved: Corner Books.")
        #expect(isActive(again) && flash(again) == nil)
    }
}

/// The header's on-call schedule is kept a moment, like sessions: an edit in this process
/// shows at once; one made by another process on the same file within the copy's lifetime.
@Suite("On call: the header's schedule copy", .timeLimit(.minutes(3)))
struct RecentScheduleTests {
    private func audit(_ action: String) -> AuditEntry {
        AuditEntry(
            recordedAt: Date(), actorId: nil, actorUsername: "test", action: action, targetKind: "oncall", targetId: "1", targetSlug: "",
            targetName: "", statusBefore: "", statusAfter: "", reason: "", outcome: .succeeded, backendStatus: nil, requestId: "",
            clientAddress: "", userAgent: "", itemCreatedAt: nil, actionId: nil)
    }

    @Test("a rotation or override saved here is in the very next schedule; one saved by another process after the copy's lifetime")
    func editsShow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // setup: two stores on one file, as two console processes
        let here = try ModerationStore(path: directory.path("console.sqlite"))
        let elsewhere = try ModerationStore(path: directory.path("console.sqlite"))
        let staff = StaffMember(id: 1, username: "staff")
        let maria = StaffMember(id: 2, username: "maria")
        for member in [staff, maria] { try await here.recordStaffMember(member, signedInAt: nil) }
        let zone = try #require(TimeZone(identifier: "Europe/Rome"))
        let now = Date()
        let rotation = try Rotation(
            members: [staff, maria], shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0), timeZone: zone,
            startDate: LocalDate(now, in: zone).adding(days: -1))
        try await here.saveRotation(rotation, audit: audit("rotation.update"), now: now)
        await #expect(try here.onCallSchedule(since: now, now: now)?.member(at: now)?.username == "staff")
        // act 1: an override here shows at once
        try await here.addOverride(
            staff: maria, startsAt: now.addingTimeInterval(-60), endsAt: now.addingTimeInterval(3_600), note: "", audit: audit("override.add"), now: now)
        let afterOverride = try await here.onCallSchedule(since: now, now: now.addingTimeInterval(0.1))?.member(at: now)?.username
        // act 2: a rotation saved elsewhere shows once the copy is older than its lifetime
        let reversed = try Rotation(
            members: [maria, staff], shiftDays: 7, handoff: LocalTime(hour: 9, minute: 0), timeZone: zone,
            startDate: LocalDate(now, in: zone).adding(days: -1))
        _ = try await here.onCallSchedule(since: now, now: now.addingTimeInterval(0.2))
        try await elsewhere.saveRotation(reversed, audit: audit("rotation.update"), now: now)
        let soon = try await here.onCallSchedule(since: now.addingTimeInterval(0.3), now: now.addingTimeInterval(0.3))?.rotation.members.first?.username
        let later = try await here.onCallSchedule(since: now.addingTimeInterval(3), now: now.addingTimeInterval(3))?.rotation.members.first?.username
        // check
        #expect(afterOverride == "maria", "the override made here is in the next header")
        #expect(soon == "staff", "another process's edit is not seen within the copy's lifetime")
        #expect(later == "maria", "and is seen after it")
    }
}
