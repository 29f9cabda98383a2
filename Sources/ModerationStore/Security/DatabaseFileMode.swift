import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The console's database holds sessions and sealed tokens, and so do its write-ahead log, its
/// shared-memory index and the copy a restore keeps aside: each is readable by its owner alone
/// (0600), like the backups and key files.
enum DatabaseFileMode {
    static let ownerOnly: mode_t = 0o600

    /// Creates the database file 0600 when it is not there yet, before SQLite opens it: SQLite
    /// gives the `-wal` and `-shm` files it makes the database's own mode.
    static func createIfMissing(_ path: String) {
        guard isFile(path) else { return }
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, ownerOnly)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Narrows the database and its companions to 0600, whatever made them (an older console,
    /// a copy, a wide umask); a file that is not there is skipped.
    static func narrow(_ path: String) {
        guard isFile(path) else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] { _ = chmod(path + suffix, ownerOnly) }
    }

    /// Whether `path` names a file on disk (not SQLite's in-memory or URI forms).
    private static func isFile(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix(":") && !path.hasPrefix("file:")
    }
}
