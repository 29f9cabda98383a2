import BookCornersAPI
@testable import ConsoleServer
import Foundation
import ModerationStore
import Testing

/// `PageStatus.attempt` is how every page reads the backend: what it keeps and what it throws.
@Suite("Page status: one backend read at a time")
struct PageStatusTests {
    private func answer(_ value: Int, fetchedAt: Date = Date()) async throws(BackendError) -> Cached<Int> {
        Cached(value: value, fetchedAt: fetchedAt, problem: nil)
    }

    private func failure(_ error: BackendError) async throws(BackendError) -> Cached<Int> {
        throw error
    }

    @Test("an answer gives its value, and the oldest answer dates the page")
    func answered() async throws {
        // setup
        var status = PageStatus()
        let old = Date().addingTimeInterval(-120)
        // act
        let first = try await status.attempt(await answer(1))
        let second = try await status.attempt(await answer(2, fetchedAt: old))
        // check
        #expect(first == 1 && second == 2)
        #expect(status.oldestFetch == old)
        #expect(status.problem == nil && status.banner == nil)
    }

    @Test("an outage or a rate limit becomes the banner and nil; the page goes on")
    func outage() async throws {
        for error in [BackendError.unavailable(.connectionFailed), .rateLimited(retryAfterSeconds: 30), .unexpectedAnswer(status: 418)] {
            // setup
            var status = PageStatus()
            // act
            let value = try await status.attempt(await failure(error))
            // check
            #expect(value == nil)
            #expect(status.problem == error)
            #expect(status.banner == error.staffMessage)
        }
    }

    @Test("an expired session or a missing item is thrown, not shown as a banner")
    func thrown() async throws {
        for error in [BackendError.sessionExpired, .notFound] {
            // setup
            var status = PageStatus()
            // act and check
            await #expect(throws: error) { _ = try await status.attempt(await failure(error)) }
            #expect(status.problem == nil)
        }
    }

    @Test("an error caught around a read of its own is absorbed the same way")
    func absorbed() throws {
        // setup
        var status = PageStatus()
        // act and check
        try status.absorb(.unavailable(.timedOut))
        #expect(status.problem == .unavailable(.timedOut))
        #expect(throws: BackendError.sessionExpired) { try status.absorb(.sessionExpired) }
        #expect(status.problem == .unavailable(.timedOut), "a thrown error does not replace the banner's")
    }

    @Test("a backend silent for less than the grace period says nothing; past it, the banner names its last answer")
    func backendSilence() {
        // setup
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let lastAnswer = now.addingTimeInterval(-300)
        var brief = PageStatus()
        var long = PageStatus()
        var never = PageStatus()
        var answering = PageStatus()
        // act
        brief.mirrorHealth(MirrorHealth(lastAnsweredAt: lastAnswer, unansweredSince: now.addingTimeInterval(-5)), now: now)
        long.mirrorHealth(MirrorHealth(lastAnsweredAt: lastAnswer, unansweredSince: now.addingTimeInterval(-200)), now: now)
        never.mirrorHealth(MirrorHealth(lastAnsweredAt: nil, unansweredSince: now.addingTimeInterval(-60)), now: now)
        answering.mirrorHealth(MirrorHealth(lastAnsweredAt: now, unansweredSince: nil), now: now)
        // check
        #expect(brief.banner == nil, "one failed read among good ones is no news")
        #expect(long.banner?.hasPrefix("Book Corners has not answered since 2027-01-15 07:55 UTC.") == true, "\(long.banner ?? "nil")")
        #expect(never.banner?.hasPrefix("Book Corners has not answered since 2027-01-15 07:59 UTC.") == true, "\(never.banner ?? "nil")")
        #expect(answering.banner == nil)
    }
}
