import Foundation
import GRDB

/// Another connection holding a database's write lock (`BEGIN IMMEDIATE`) for a while, as a
/// second console process or `console devices import` would.
final class HeldWriteLock: Sendable {
    private final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    private let released: Flag
    private let holding: Task<Void, any Error>

    /// Takes the lock on the database at `path` and keeps it `seconds`; answers once it is held.
    /// It waits up to 10 s for the lock itself, since the console writes too.
    static func take(_ path: String, for seconds: TimeInterval) async throws -> HeldWriteLock {
        var patient = Configuration()
        patient.busyMode = .timeout(10)
        let holder = try DatabaseQueue(path: path, configuration: patient)
        let (locked, released) = (Flag(), Flag())
        let lock = HeldWriteLock(holder: holder, seconds: seconds, locked: locked, released: released)
        while !locked.isSet {
            if lock.released.isSet { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return lock
    }

    private init(holder: DatabaseQueue, seconds: TimeInterval, locked: Flag, released: Flag) {
        self.released = released
        holding = Task.detached {
            defer { released.set() }
            try await holder.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.set()
                Thread.sleep(forTimeInterval: seconds)
                try db.execute(sql: "COMMIT")
            }
            try holder.close()
        }
    }

    /// Whether the lock has been given back.
    var isReleased: Bool { released.isSet }

    /// Waits until the lock is given back; throws what taking or keeping it threw.
    func release() async throws {
        try await holding.value
    }
}
