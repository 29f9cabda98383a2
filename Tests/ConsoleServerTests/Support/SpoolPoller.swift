import ConsoleServer
import Foundation
import Synchronization

/// A separate sender, as the spool is meant for: on a thread of its own (not a task: a busy
/// loop would hold one of the cooperative pool's few threads) it lists the directory over and
/// over, reads every `*.json` file the moment it appears, and removes it once read. Reading new
/// files at once is what would catch one still being written. It notes every file it could
/// not read or decode.
final class SpoolPoller: Sendable {
    struct Findings: Sendable {
        /// Ids of the envelopes read whole.
        var messagesRead: Set<String> = []
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

    /// Stops the thread, takes what is left, and answers what it found.
    func stop() -> Findings {
        state.withLock { $0.running = false }
        finished.wait()
        pollOnce()
        return state.withLock { $0 }
    }

    private func pollOnce() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let path = directory + "/" + name
            let envelope: OutboxEnvelope?
            let problem: String?
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                envelope = try? OutboxEnvelope.decode(data)
                problem = envelope == nil ? "\(name): \(data.count) bytes, not a whole envelope" : nil
            } catch {
                envelope = nil
                problem = "\(name): listed but could not be read"
            }
            try? FileManager.default.removeItem(atPath: path)
            state.withLock { findings in
                findings.filesRead += 1
                if let envelope { findings.messagesRead.insert(envelope.id) }
                if let problem { findings.problems.append(problem) }
            }
        }
    }
}
