import Foundation
import ModerationStore
import Synchronization

@testable import ConsoleServer

/// A transport that answers what a test scripts, per device token (or for every device),
/// and remembers each delivery it was handed: for the dispatcher's own decisions, which the
/// real transports' tests do not reach (they each answer with their own faults).
final class ScriptedTransport: OutboxTransport {
    let name = "scripted"
    private let state = Mutex(State())
    private let delay: Duration

    private struct State {
        var answers: [String: [DeliveryResult]] = [:]
        var fallback: [DeliveryResult] = []
        var delivered: [(messageID: String, token: String)] = []
        var calls = 0
    }

    init(delay: Duration = .zero) {
        self.delay = delay
    }

    /// The next answers for `token` (or for any token when nil), used one per delivery; after them, delivered.
    func script(_ outcomes: [DeliveryResult], for token: String? = nil) {
        state.withLock { state in
            if let token { state.answers[token, default: []] += outcomes } else { state.fallback += outcomes }
        }
    }

    /// Every (message, device) pair this transport reported delivered.
    var delivered: [(messageID: String, token: String)] { state.withLock { $0.delivered } }
    var calls: Int { state.withLock { $0.calls } }

    func deliver(_ delivery: OutboxDelivery) async -> [DeliveryResult] {
        if delay > .zero { try? await Task.sleep(for: delay) }
        return state.withLock { state in
            state.calls += 1
            return delivery.devices.map { device in
                var answer: DeliveryResult
                if var queue = state.answers[device.token], !queue.isEmpty {
                    answer = queue.removeFirst()
                    state.answers[device.token] = queue
                } else if !state.fallback.isEmpty {
                    answer = state.fallback.removeFirst()
                } else {
                    answer = DeliveryResult(outcome: .delivered, httpStatus: 200)
                }
                answer.deviceToken = device.token
                if answer.outcome == .delivered { state.delivered.append((delivery.message.id, device.token)) }
                return answer
            }
        }
    }
}
