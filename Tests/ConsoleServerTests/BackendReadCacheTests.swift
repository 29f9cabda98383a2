import BookCornersAPI
@testable import ConsoleServer
import Foundation
import Synchronization
import Testing

@Suite("BackendReadCache invalidation")
struct BackendReadCacheTests {
    /// A load that stays in flight until the test lets it answer.
    private final class HeldLoad: Sendable {
        private let started = AsyncStream<Void>.makeStream()
        private let release = AsyncStream<Void>.makeStream()

        func load(answer: String) async -> String {
            started.continuation.yield()
            for await _ in release.stream { break }
            return answer
        }

        func waitUntilStarted() async {
            for await _ in started.stream { break }
        }

        func answer() {
            release.continuation.yield()
        }
    }

    @Test("a load started before an invalidation cannot store its stale answer")
    func loadRacingInvalidation() async throws {
        // setup: a load of the old status is in flight
        let cache = BackendReadCache(lifetime: 60)
        let held = HeldLoad()
        let early = Task {
            try await cache.value("library/corner") { () async throws(BackendError) -> String in await held.load(answer: "pending") }
        }
        await held.waitUntilStarted()
        // act: a decision changes the item and drops it from the cache; then the old load answers
        await cache.invalidate(prefix: "library/")
        held.answer()
        _ = try await early.value
        let later = try await cache.value("library/corner") { () async throws(BackendError) -> String in "rejected" }
        // check
        #expect(later.value == "rejected", "the load that began before the invalidation was not kept")
    }

    @Test("invalidating one prefix keeps other answers")
    func otherKeysKept() async throws {
        // setup
        let cache = BackendReadCache(lifetime: 60)
        _ = try await cache.value("summary") { () async throws(BackendError) -> String in "first" }
        _ = try await cache.value("library/corner") { () async throws(BackendError) -> String in "pending" }
        // act
        await cache.invalidate(prefix: "library/")
        let summary = try await cache.value("summary") { () async throws(BackendError) -> String in "second" }
        // check
        #expect(summary.value == "first")
    }
}
