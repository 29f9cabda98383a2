import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A program started with `posix_spawn`, for tests that run a server binary or a browser
/// driver beside them. Foundation's `Process` was seen to crash (SIGSEGV in `run()`) while
/// the test process held many descriptors on many threads; spawning directly also keeps the
/// child from inheriting the test process's sockets and database files (all but 0–2 are
/// closed in the child).
public struct SpawnedProcess: Sendable {
    public let pid: pid_t

    /// Starts `executable` in `directory` (or the current one), its output appended to
    /// `outputPath` (or discarded), with this process's environment and `environment` besides.
    public static func start(
        _ executable: String, _ arguments: [String], in directory: String? = nil, outputPath: String? = nil, environment: [String: String] = [:]
    ) throws -> SpawnedProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let output = outputPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // glibc's *_np actions (2.29, 2.34) are not in Swift's Glibc module: looked up by name.
        if let closeFrom = GlibcSpawnActions.closeFrom { _ = closeFrom(&actions, 3) }
        if let directory {
            guard let changeDirectory = GlibcSpawnActions.changeDirectory else { throw ChildProcessError.spawnFailed(executable, errno: ENOSYS) }
            _ = changeDirectory(&actions, directory)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, added in added }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else { throw ChildProcessError.spawnFailed(executable, errno: spawned) }
        return SpawnedProcess(pid: pid)
    }

    /// Whether it still runs; an exited child is reaped here, so it leaves no zombie.
    public var isRunning: Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Blocks until it has exited, or `limit` seconds have passed; answers whether it exited.
    /// Blocking, so it can run in a `defer`: tests wait here for a process they just signalled.
    @discardableResult
    public func waitUntilExit(limit: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while isRunning {
            guard Date() < deadline else { return false }
            usleep(10_000)
        }
        return true
    }

    /// Blocks until it exits or `limit` seconds pass; answers its exit code (128 + the signal
    /// when a signal ended it), or nil when it still runs. Call it instead of `isRunning`,
    /// which reaps the child and loses the code.
    public func exitCode(within limit: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(limit)
        while true {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            guard Date() < deadline else { return nil }
            usleep(10_000)
        }
    }

    /// Sends SIGTERM and waits for the exit; SIGKILL if it has not stopped after `grace` seconds.
    public func stop(grace: Double = 10) {
        guard isRunning else { return }
        signal(SIGTERM)
        if !waitUntilExit(limit: grace) {
            signal(SIGKILL)
            waitUntilExit()
        }
    }
}

/// glibc's non-portable spawn actions, found at run time.
private enum GlibcSpawnActions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

    static let closeFrom: CloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: CloseFrom.self) }
    static let changeDirectory: ChangeDirectory? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: ChangeDirectory.self) }
}
