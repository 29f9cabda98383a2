import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The real `console` executable that `swift build` made, started as a separate process.
enum ConsoleBinary {
    /// `CONSOLE_BINARY` runs another build instead (e.g. an earlier commit's, to see a new test fail on it).
    static var path: String {
        ProcessInfo.processInfo.environment["CONSOLE_BINARY"] ?? RepositoryPaths.root.appendingPathComponent(".build/debug/console").path
    }

    /// Starts `executable` with `arguments` in `workingDirectory`; its output goes to `log`.
    static func start(
        _ arguments: [String], executable: String = path, in workingDirectory: URL, log: String, environment: [String: String] = [:]
    ) throws -> SpawnedProcess {
        try SpawnedProcess.start(executable, arguments, in: workingDirectory.path, outputPath: log, environment: environment)
    }

    /// `console serve` on `port` against `backend` (an origin, without `/api/v1/`), its database in
    /// `directory`, no metrics and no watcher, the mirror reading freely: one of several processes
    /// on one database, as the two-process tests start them.
    static func startServe(port: Int, backend: String, directory: TemporaryDirectory, environment: [String: String] = [:]) throws -> SpawnedProcess {
        try start(
            [
                "serve", "--no-metrics", "--no-watch", "--port", String(port), "--database", directory.path("console.sqlite"),
                "--backend-url", backend + "/api/v1/", "--templates", RepositoryPaths.templates, "--public", RepositoryPaths.publicFiles,
                "--log-level", "error", "--mirror-backend-limit", "10000", "--mirror-backend-window", "2",
            ], in: directory.url, log: directory.path("console-\(port).log"),
            // The sandbox counts a call as it arrives: one budget window per call (set through the
            // environment, which an earlier build run with CONSOLE_BINARY ignores).
            environment: ["CONSOLE_BACKEND_COUNT_SPAN": "0"].merging(environment) { _, given in given })
    }

    /// `count` `console serve` processes on one database, each started once the one before is up
    /// (the first makes the token key); answers them with their addresses. Stop them with `stop`.
    static func startServes(
        _ count: Int, backend: String, directory: TemporaryDirectory, environment: [String: String] = [:]
    ) async throws -> (processes: [SpawnedProcess], bases: [String]) {
        var processes: [SpawnedProcess] = []
        var bases: [String] = []
        do {
            for _ in 0..<count {
                let port = try FreePort.find()
                let console = try startServe(port: port, backend: backend, directory: directory, environment: environment)
                processes.append(console)
                try await waitUntilUp(console, port: port, log: directory.path("console-\(port).log"))
                bases.append("http://127.0.0.1:\(port)")
            }
        } catch {
            processes.forEach { $0.stop() }
            throw error
        }
        return (processes, bases)
    }

    /// Waits until `/healthz` on `port` answers, or the process stops (then throws with its output).
    static func waitUntilUp(_ process: SpawnedProcess, port: Int, log: String) async throws {
        for _ in 0..<300 {
            if (try? await rawHTTP(.GET, "http://127.0.0.1:\(port)/healthz"))?.status == 200 { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ConsoleBinaryError.didNotStart(output: (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    static func stop(_ process: SpawnedProcess) {
        process.stop()
    }
}

enum ConsoleBinaryError: Error, CustomStringConvertible {
    case didNotStart(output: String)

    var description: String {
        switch self {
        case .didNotStart(let output): "The console did not start. Its output:\n\(output)"
        }
    }
}
