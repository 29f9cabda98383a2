import Foundation
import Hummingbird
import Logging
import ModerationStore

/// What a Prometheus scrape reads: the process's swift-metrics registry (requests, backend
/// calls, passes of the runner, dispatcher and mirror), then the values only the database
/// and the backend's windows know, read as the scrape asks.
public struct MetricsPage: Sendable {
    let store: ModerationStore
    let backend: BackendCallMetrics
    let logger: Logger

    public init(store: ModerationStore, backend: BackendCallMetrics, logger: Logger) {
        self.store = store
        self.backend = backend
        self.logger = logger
    }

    func render(now: Date = Date()) async -> String {
        var text = PrometheusText()
        backend.write(into: &text)
        do {
            let snapshot = try await store.operationsSnapshot(now: now)
            text.family("console_database_up", .gauge, help: "1 when the console's database answered this scrape.", value: 1)
            text.family(
                "console_actions", .gauge, help: "Decisions by state (queued, sending, waiting and parked are unfinished).",
                samples: ModerationAction.State.allCases.map { ([("state", $0.rawValue)], Double(snapshot.actions[$0] ?? 0)) })
            text.family(
                "console_action_oldest_unfinished_age_seconds", .gauge,
                help: "Age of the oldest decision not yet applied, in conflict or failed; 0 when there is none.",
                value: snapshot.oldestUnfinishedActionAt.map { max(0, now.timeIntervalSince($0)) } ?? 0)
            text.family(
                "console_outbox_messages", .gauge, help: "Notification outbox messages by state.",
                samples: OutboxMessage.State.allCases.map { ([("state", $0.rawValue)], Double(snapshot.outbox[$0] ?? 0)) })
            text.family(
                "console_audit_appends_total", .counter, help: "Audit entries ever appended to this database.",
                value: Double(snapshot.auditAppends))
            text.family("console_sessions_active", .gauge, help: "Staff sessions not expired.", value: Double(snapshot.activeSessions))
        } catch {
            logger.error("metrics could not read the database", metadata: ["error": "\(error)"])
            text.family("console_database_up", .gauge, help: "1 when the console's database answered this scrape.", value: 0)
        }
        return ConsoleMetrics.registry.emitToString() + text.text
    }
}

/// The metrics listener: `/metrics` alone, on its own address (loopback by default), so
/// the numbers are never public just because the console is.
func makeMetricsApplication(page: MetricsPage, host: String, port: Int, logger: Logger) -> some ApplicationProtocol {
    let router = Router()
    router.get("metrics") { _, _ -> Response in
        let body = await page.render()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }
    var quiet = logger
    quiet.logLevel = max(logger.logLevel, .notice)
    return Application(
        router: router, configuration: .init(address: .hostname(host, port: port), serverName: "BookCornersConsoleMetrics"), logger: quiet)
}
