import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory `flock` on `<database>.lock`: every running console, and every `console`
/// command that opens the database, holds it shared for its lifetime (several on one file are
/// fine), and `console restore` takes it exclusively, so it never replaces the database under
/// a process that has it open, and nothing writes into a file a restore is moving aside. The
/// kernel drops the lock when the process ends, however it ends.
public final class DatabaseLock: Sendable {
    private let descriptor: Int32
    public let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    public static func lockPath(forDatabase databasePath: String) -> String {
        databasePath + ".lock"
    }

    /// Held by a running console; fails (never waits) while a restore holds it exclusively.
    public static func shared(databasePath: String) throws(DatabaseLockError) -> DatabaseLock {
        try take(databasePath: databasePath, operation: LOCK_SH, busy: .restoreUnderWay)
    }

    /// Held by a restore; fails (never waits) while any console holds it.
    public static func exclusive(databasePath: String) throws(DatabaseLockError) -> DatabaseLock {
        try take(databasePath: databasePath, operation: LOCK_EX, busy: .consoleRunning)
    }

    private static func take(databasePath: String, operation: Int32, busy: DatabaseLockError.Reason) throws(DatabaseLockError) -> DatabaseLock {
        let path = lockPath(forDatabase: databasePath)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DatabaseLockError(reason: .cannotOpen(errno: errno), path: path) }
        while flock(descriptor, operation | LOCK_NB) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            close(descriptor)
            throw DatabaseLockError(reason: failure == EWOULDBLOCK ? busy : .cannotOpen(errno: failure), path: path)
        }
        return DatabaseLock(descriptor: descriptor, path: path)
    }
}

public struct DatabaseLockError: Error, Equatable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// A console holds the lock: its database must not be replaced.
        case consoleRunning
        /// A restore is replacing the database right now.
        case restoreUnderWay
        case cannotOpen(errno: Int32)
    }

    public let reason: Reason
    public let path: String

    public var description: String {
        switch reason {
        case .consoleRunning:
            "A console is running on this database, or a console command is using it (it holds \(path)): stop every `console serve` and `console demo` using it and let other `console` commands on it finish, then restore."
        case .restoreUnderWay:
            "A restore is replacing this database right now (it holds \(path)); nothing was done. Start the console, or run the command again, when it is done."
        case .cannotOpen(let code): "Cannot lock \(path): \(String(cString: strerror(code)))."
        }
    }
}
