import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion and reports what the kernel measured of it, peak memory
/// included (Foundation's `Process` does not expose `wait4`'s resource usage).
public struct ChildProcess {
    public let status: Int32
    /// Peak resident set size, in kilobytes.
    public let maxResidentKilobytes: Int
    public let output: String
    public let errorOutput: String

    public static func run(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outPath = directory.path("stdout")
        let errPath = directory.path("stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ChildProcessError.spawnFailed(executable, errno: spawned) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw ChildProcessError.waitFailed(errno: errno) }
        }
        // WEXITSTATUS, spelled out: the macro is not imported.
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ChildProcess(
            status: exitCode, maxResidentKilobytes: usage.ru_maxrss,
            output: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            errorOutput: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

public enum ChildProcessError: Error {
    case spawnFailed(String, errno: Int32)
    case waitFailed(errno: Int32)
}
