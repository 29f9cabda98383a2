import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the database stands: equal stamps mean no transaction was committed in between, by
/// any connection of any process. Read from SQLite's WAL-index header (the `-shm` file), whose
/// change counter, last frame and salts move with every commit and every WAL restart
/// (<https://sqlite.org/walformat.html>, "The WAL-Index Header").
public struct ChangeStamp: Sendable, Hashable {
    /// The 48-byte `WalIndexHdr`, as six words.
    let words: [UInt64]
}

/// Reads `ChangeStamp`s of one database file through a descriptor opened once.
final class ChangeStampReader: Sendable {
    private static let headerSize = 48
    private let descriptor: Int32

    /// `nil` when the file has no WAL index to read (not in WAL mode, or not opened yet).
    init?(databasePath: String) {
        let descriptor = open(databasePath + "-shm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The stamp now, or `nil` while a writer is between the header's two copies (SQLite
    /// writes the second copy, then the first: a reader that sees them differ must not trust either).
    func stamp() -> ChangeStamp? {
        var bytes = [UInt8](repeating: 0, count: 2 * Self.headerSize)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count == 2 * Self.headerSize, bytes[0..<Self.headerSize] == bytes[Self.headerSize...] else { return nil }
        let words = stride(from: 0, to: Self.headerSize, by: 8).map { offset in
            bytes[offset..<offset + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        return ChangeStamp(words: words)
    }
}
