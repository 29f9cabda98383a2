import Foundation
import ModerationStore

/// `/readyz`: whether this console can do its work now. Ready when its database takes
/// writes, its templates are loaded and Book Corners answered within `backendSilenceLimit`
/// (this process's calls, or the mirror's in any process sharing the database).
struct ReadinessCheck: Sendable {
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

    func verdict(now: Date = Date()) -> Verdict {
        var reasons: [String] = []
        do {
            try store.checkWritable()
        } catch {
            reasons.append("database: not writable (\(error))")
        }
        let missing = renderer.missingTemplates()
        if !missing.isEmpty { reasons.append("templates: missing \(missing.joined(separator: ", "))") }
        let mirrorAnswer = (try? store.mirrorHealth())??.lastAnsweredAt
        let lastAnswer = [backend.lastAnswerAt, mirrorAnswer].compactMap { $0 }.max()
        if let lastAnswer {
            let silence = now.timeIntervalSince(lastAnswer)
            if silence > backendSilenceLimit {
                reasons.append("backend: no answer for \(Int(silence)) s (since \(ISO8601DateFormatter().string(from: lastAnswer)))")
            }
        } else {
            reasons.append("backend: no answer yet")
        }
        return Verdict(reasons: reasons)
    }
}
