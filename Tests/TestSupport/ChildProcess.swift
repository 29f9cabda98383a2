import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion and reports its exit status, output and peak memory.
public struct ChildProcess {
    public let status: Int32
    /// The program's own peak resident set size, in kilobytes (see `peakResidentKilobytes(of:)`).
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
        var sampledPeak: Int?
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0 {
                guard errno == EINTR else { throw ChildProcessError.waitFailed(errno: errno) }
                continue
            }
            sampledPeak = peakResidentKilobytes(of: pid) ?? sampledPeak
            usleep(5_000)
        }
        // WEXITSTATUS, spelled out: the macro is not imported.
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return ChildProcess(
            status: exitCode, maxResidentKilobytes: sampledPeak ?? usage.ru_maxrss,
            output: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            errorOutput: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

/// The high-water mark of a running process's own memory, from `/proc/PID/status` (`VmHWM`),
/// or nil where there is no such file. `wait4`'s `ru_maxrss` cannot be used for this: Linux
/// keeps the spawning process's high-water mark across `exec`, so a child of a large test
/// process reports the test process's size. `VmHWM` only grows, so the last sample before
/// the program exits is its peak, give or take the last few milliseconds.
func peakResidentKilobytes(of pid: pid_t) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return nil }
    return line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) }
}

public enum ChildProcessError: Error {
    case spawnFailed(String, errno: Int32)
    case waitFailed(errno: Int32)
}
