import Synchronization

/// Ends a live stream whose page has stopped reading. A reader that never reads (a frozen
/// tab, a client that only opens connections) would otherwise keep its stream's place, and
/// one of the session's few, until a heartbeat's write failed, which for a socket that is
/// open but full never happens: a write waits for the reader, so once one has waited longer
/// than `limit`, the stream is cancelled (a suspended response write ends on cancellation).
final class StalledReaderWatch: Sendable {
    /// Thrown when a write waited longer than the limit: the stream was ended for it.
    struct Stalled: Error {}

    let limit: Duration
    /// When the write under way began; nil between writes.
    private let writeBegan = Mutex<ContinuousClock.Instant?>(nil)

    init(limit: Duration) {
        self.limit = limit
    }

    /// Performs one write of the stream, timed.
    func write(_ body: () async throws -> Void) async throws {
        writeBegan.withLock { $0 = .now }
        defer { writeBegan.withLock { $0 = nil } }
        try await body()
    }

    /// Runs `operation` (the stream, writing through `write`) until it ends, or until one of
    /// its writes has waited longer than `limit`: then `operation` is cancelled and `Stalled`
    /// thrown.
    func run(_ operation: () async throws -> Void) async throws {
        try await withoutActuallyEscaping(operation) { operation in
            // The stream writes to its response through an inout writer, which is why it is not
            // Sendable; it runs in one child task at a time, awaited here, and never escapes.
            let stream = UncheckedSendableOperation(operation)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await stream.operation() }
                group.addTask {
                    try await self.waitForStall()
                    throw Stalled()
                }
                // The first to finish decides; leaving the group cancels the other.
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// Returns once a write has waited longer than `limit`, looking a few times per limit.
    private func waitForStall() async throws {
        let step = limit / 4
        while true {
            try await Task.sleep(for: step)
            if let began = writeBegan.withLock({ $0 }), ContinuousClock.now - began > limit { return }
        }
    }
}

/// A non-Sendable closure carried into one child task that its caller awaits.
private struct UncheckedSendableOperation: @unchecked Sendable {
    let operation: () async throws -> Void

    init(_ operation: @escaping () async throws -> Void) {
        self.operation = operation
    }
}
