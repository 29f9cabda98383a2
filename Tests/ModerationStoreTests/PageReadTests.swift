import Foundation
import ModerationStore
import ModerationVocabulary
import Testing

/// A page's reads run on the request's own thread (`readNow`); the store's long reads are async
/// on GRDB's queues. Sharing one pool of connections, the two once stopped the console under 16
/// connections: every cooperative thread waited for a connection while every connection waited
/// for a cooperative thread to resume the async read that held it.
@Suite("ModerationStore: a page's reads and the long reads never wait for each other")
struct PageReadTests {
    /// Ends the test run, loudly, if the reads have not finished by then: a deadlock holds the
    /// cooperative threads the test itself would need to notice it.
    private final class Watchdog: @unchecked Sendable {
        private let lock = NSLock()
        private var finished = false

        init(seconds: UInt32, what: String) {
            Thread.detachNewThread { [self] in
                sleep(seconds)
                if !lock.withLock({ finished }) {
                    FileHandle.standardError.write(Data("\(what) did not finish in \(seconds) s: the reads are deadlocked\n".utf8))
                    exit(1)
                }
            }
        }

        func finish() { lock.withLock { finished = true } }
    }

    @Test("64 tasks mixing a page's reads and async reads, 50 each, all finish")
    func mixedReadsFinish() async throws {
        // setup
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("page-reads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try ModerationStore(path: directory.appendingPathComponent("console.sqlite").path)
        let watchdog = Watchdog(seconds: 60, what: "64 tasks of mixed reads")

        // act: half the tasks read as a page does, half as the long reads do, all at once
        let reads = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<64 {
                group.addTask {
                    for _ in 0..<50 {
                        if task.isMultiple(of: 2) {
                            _ = try await store.activeClaims(kind: .library, keys: ["a", "b", "c"], now: Date())
                        } else {
                            _ = try await store.mirrorStatistics()
                        }
                    }
                    return 50
                }
            }
            return try await group.reduce(0, +)
        }
        watchdog.finish()

        // check
        #expect(reads == 64 * 50)
    }
}
