import BookCornersAPI
@testable import ConsoleServer
import Foundation
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
}
