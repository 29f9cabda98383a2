import Foundation
import Hummingbird
import Logging
import Synchronization

/// Who a request turned out to be from. Outer middleware sees the context as it was before
/// the session was found, so the session's middleware writes the staff member here (a
/// reference the context carries) for the request's log line.
final class RequestStaff: Sendable {
    private let staff = Mutex<(id: Int, username: String)?>(nil)

    func set(id: Int, username: String) {
        staff.withLock { $0 = (id, username) }
    }

    var value: (id: Int, username: String)? {
        staff.withLock { $0 }
    }
}

/// One `info` line per request as it leaves: method, route (the pattern, never an id),
/// status, duration, and the staff member when signed in. The request id comes with the
/// logger's metadata. Never the query, a cookie, a form or a token.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, context: context, status: response.status.code, started: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log(request, context: context, status: status, started: started)
            throw error
        }
    }

    private func log(_ request: Request, context: Context, status: Int, started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)",
            "route": "\(context.endpointPath ?? "unmatched")",
            "status": "\(status)",
            "duration_ms": "\(String(format: "%.2f", Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000))",
        ]
        if let staff = context.staff.value {
            metadata["staff_id"] = "\(staff.id)"
            metadata["staff"] = "\(staff.username)"
        }
        context.logger.info("request", metadata: metadata)
    }
}
