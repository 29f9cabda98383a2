import ConsoleServer
import Foundation
import Synchronization

/// Reads every `*.json` file of a spool directory over and over on a thread of its own (not
/// a task: a busy loop would hold one of the cooperative pool's few threads), as a separate
/// sender would, and notes every file it could not read or decode.
final class SpoolPoller: Sendable {
    struct Findings: Sendable {
        var filesRead = 0
        /// `name: why` of every file that was not a whole envelope when read.
        var problems: [String] = []
        var running = true
    }

    private let directory: String
    private let state = Mutex(Findings())
    private let finished = DispatchSemaphore(value: 0)

    init(directory: String) {
        self.directory = directory
    }

    func start() {
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                pollOnce()
            }
            finished.signal()
        }
        thread.start()
    }

    /// Stops the thread and answers what it found.
    func stop() -> Findings {
        state.withLock { $0.running = false }
        finished.wait()
        return state.withLock { $0 }
    }

    private func pollOnce() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let problem: String?
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
                problem = (try? OutboxEnvelope.decode(data)) == nil ? "\(name): \(data.count) bytes, not a whole envelope" : nil
            } catch {
                problem = "\(name): listed but could not be read"
            }
            state.withLock { findings in
                findings.filesRead += 1
                if let problem { findings.problems.append(problem) }
            }
        }
    }
}
