import Foundation
import Hummingbird
import NIOCore
import TestSupport

/// A small backend that misbehaves on purpose: each test scripts the answers per path and
/// reads back how many calls arrived and with which headers.
actor CallLog {
    private(set) var calls: [String: Int] = [:]
    private(set) var lastHeaders: [String: String] = [:]

    /// Counts a call and answers its number (1 for the first).
    func record(_ path: String, headers: HTTPFields) -> Int {
        calls[path, default: 0] += 1
        lastHeaders = Dictionary(headers.map { ($0.name.canonicalName, $0.value) }, uniquingKeysWith: { $1 })
        return calls[path, default: 0]
    }

    func count(_ path: String) -> Int { calls[path, default: 0] }
}

/// Set by a test once it has what it came for, so scripted routes can stop stalling.
actor TestDone {
    private(set) var isDone = false

    func set() { isDone = true }
}

/// What a scripted route answers for its n-th call.
typealias Script = @Sendable (_ callNumber: Int, _ request: Request) async throws -> Response

enum FaultServer {
    /// Runs a server whose `/api/v1/<path>` answers follow `routes`, around `body`.
    static func run<Result: Sendable>(
        _ routes: [String: Script], log: CallLog, _ body: (URL) async throws -> Result
    ) async throws -> Result {
        let router = Router()
        for (path, script) in routes {
            for method in [HTTPRequest.Method.get, .post, .patch] {
                router.on(RouterPath("/api/v1/" + path), method: method) { request, _ in
                    try await script(await log.record(path, headers: request.headers), request)
                }
            }
        }
        return try await withRunningRouter(router) { port in
            try await body(URL(string: "http://127.0.0.1:\(port)/api/v1/")!)
        }
    }

    static func json(_ status: HTTPResponse.Status, _ text: String, contentType: String = "application/json; charset=utf-8") -> Response {
        Response(status: status, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static let summary =
        #"{"pending_libraries_count": 1, "open_reports_count": 2, "pending_photos_count": 3, "total_pending": 6, "total_libraries": 10, "total_users": 4}"#
    static let me = #"{"id": 2, "username": "staff", "email": "staff@example.com", "is_social_only": false, "is_staff": true}"#
}
