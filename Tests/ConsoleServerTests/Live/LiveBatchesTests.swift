import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// Issue 46, item 6: what a change means for the open streams is read once per process, not
/// once per stream; each stream writes it for its own viewer from memory.
@Suite("Live batches: one read per change for every open stream")
struct LiveBatchesTests {
    @Test("200 streams woken by one claim, all asking at once, cost one read of the change; a newer change is read again")
    func oneReadForEveryStream() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try ModerationStore(path: directory.path("console.sqlite"))
        let before = try await store.lastLiveChangeID()
        _ = try await store.claim(.init(kind: .library, key: "corner"), holderId: 7, holderUsername: "maria", now: Date(), duration: 600)
        let newest = try await store.lastLiveChangeID()
        let batches = LiveBatches(store: store)
        let schedule = SendSchedule(limits: nil)

        // act: every stream asks at once
        let texts = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for viewer in 0..<200 {
                group.addTask {
                    let batch = try await batches.batch(after: before, newest: newest, schedule: schedule)
                    return (viewer, try batch.text(viewer: 100 + viewer, now: Date()))
                }
            }
            return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
        }

        // check
        #expect(await batches.reads == 1)
        #expect(texts.count == 200 && texts.values.allSatisfy { $0.contains("event: item") })
        _ = try await store.releaseClaim(.init(kind: .library, key: "corner"), holderId: 7, holderUsername: "maria", now: Date())
        let newer = try await store.lastLiveChangeID()
        _ = try await batches.batch(after: before, newest: newer, schedule: schedule)
        #expect(await batches.reads == 2, "a newer change is read again")
    }
}
