import Foundation
import Logging
import ModerationStore

/// `/readyz`: whether this console can do its work now. Ready when its database takes
/// writes and passed SQLite's `quick_check` (kept `integrityInterval`, since the check walks the
/// whole file), its templates are loaded and Book Corners answered within `backendSilenceLimit`
/// (this process's calls, or the mirror's in any process sharing the database). A verdict is
/// kept 2 s and one check runs at a time, so probes, however many, never queue up on SQLite's
/// write lock; reasons are short words, the details go to the log.
actor ReadinessCheck {
    /// The verdict, with a short reason per failed condition.
    struct Verdict: Sendable, Equatable {
        var reasons: [String]
        var isReady: Bool { reasons.isEmpty }

        /// `{"ready":true}` or `{"ready":false,"reasons":[…]}`.
        var json: String {
            guard !isReady else { return #"{"ready":true}"# + "\n" }
            let encoded = (try? JSONEncoder().encode(reasons)).flatMap { String(data: $0, encoding: .utf8) } ?? "[]"
            return #"{"ready":false,"reasons":"# + encoded + "}\n"
        }
    }

    let store: ModerationStore
    let renderer: PageRenderer
    let backend: BackendCallMetrics
    let backendSilenceLimit: TimeInterval
    let databasePath: String
    let integrityInterval: TimeInterval
    let logger: Logger
    /// The last integrity check's verdict (nil: intact), and when it ran.
    private var integrity: (at: ContinuousClock.Instant, reason: String?)?
    private var recent: (at: ContinuousClock.Instant, verdict: Verdict)?
    private var running: Task<Verdict, Never>?

    init(
        store: ModerationStore, renderer: PageRenderer, backend: BackendCallMetrics, backendSilenceLimit: TimeInterval,
        databasePath: String, integrityInterval: TimeInterval, logger: Logger
    ) {
        self.store = store
        self.renderer = renderer
        self.backend = backend
        self.backendSilenceLimit = backendSilenceLimit
        self.databasePath = databasePath
        self.integrityInterval = integrityInterval
        self.logger = logger
    }

    /// The verdict of at most 2 s ago, or of the check already under way, or a new one.
    func verdict() async -> Verdict {
        if let recent, ContinuousClock.now - recent.at < .seconds(2) { return recent.verdict }
        if let running { return await running.value }
        let task = Task { await self.check() }
        running = task
        let verdict = await task.value
        running = nil
        recent = (ContinuousClock.now, verdict)
        return verdict
    }

    private func check() async -> Verdict {
        var reasons: [String] = []
        do {
            try await store.checkWritable()
        } catch {
            logger.error("readiness: the database takes no writes", metadata: ["error": "\(error)"])
            reasons.append("database: not writable")
        }
        if let reason = await integrityReason() { reasons.append(reason) }
        let missing = renderer.missingTemplates()
        if !missing.isEmpty { reasons.append("templates: missing \(missing.joined(separator: ", "))") }
        let mirrorAnswer = await (try? store.mirrorHealth())??.lastAnsweredAt
        let lastAnswer = [backend.lastAnswerAt, mirrorAnswer].compactMap { $0 }.max()
        if let lastAnswer {
            // Measured now, not when the check began: the database checks above can take a while.
            let silence = Date().timeIntervalSince(lastAnswer)
            if silence > backendSilenceLimit {
                reasons.append("backend: no answer for \(Int(silence)) s (since \(ISO8601DateFormatter().string(from: lastAnswer)))")
            }
        } else {
            reasons.append("backend: no answer yet")
        }
        return Verdict(reasons: reasons)
    }

    /// "database: damaged" while the last `quick_check` (kept `integrityInterval`) found problems;
    /// "database: not checked" when it could not run; nil when the file is intact.
    private func integrityReason() async -> String? {
        if let integrity, ContinuousClock.now - integrity.at < .seconds(integrityInterval) { return integrity.reason }
        var reason: String?
        do {
            let problems = try await DatabaseIntegrity.problems(atPath: databasePath)
            if !problems.isEmpty {
                logger.error("readiness: the database is damaged", metadata: ["problems": "\(problems.prefix(5).joined(separator: "; "))"])
                reason = "database: damaged"
            }
        } catch {
            logger.error("readiness: the database's integrity could not be checked", metadata: ["error": "\(error)"])
            reason = "database: not checked"
        }
        integrity = (ContinuousClock.now, reason)
        return reason
    }
}
