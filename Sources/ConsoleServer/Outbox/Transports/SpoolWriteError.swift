import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a spool file could not be written, in words: the disk, the directory's owner or mode.
struct SpoolWriteError: Error, Equatable, CustomStringConvertible {
    /// What was being done: `create`, `write`, `sync`, `rename into place`, …
    let step: String
    let path: String
    /// The `errno` it failed with.
    let code: Int32

    var description: String {
        "could not \(step) \(path): \(String(cString: strerror(code))); check the spool directory's owner, mode and free space"
    }
}
