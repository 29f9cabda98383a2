import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1

/// A loopback proxy in front of a real backend that breaks chosen calls on purpose: it
/// answers an error instead of forwarding, or after forwarding (the change happened, but
/// the caller hears it failed). Everything else passes through: status, content type and body.
public actor FaultingProxy {
    /// What the proxy does with one call.
    public enum Fault: Sendable {
        case pass
        case answerWithoutForwarding(HTTPResponse.Status)
        case answerAfterForwarding(HTTPResponse.Status)
        /// Forwards after holding the call this long: a slow backend.
        case passAfter(Duration)
        /// Forwards, then closes the connection without a word: the change happened, and its
        /// answer is lost (as after a dropped connection or a process killed mid-call).
        case dropAnswerAfterForwarding
    }

    /// The request context of the proxy's router: it keeps the connection, so a fault can close it.
    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let channel: any Channel

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            channel = source.channel
        }
    }

    /// Decides per call; `callNumber` counts calls with the same method and path, from 1.
    public typealias Plan = @Sendable (_ method: HTTPRequest.Method, _ path: String, _ callNumber: Int) -> Fault
    /// Runs as a call arrives, with its query (without `?`).
    public typealias BeforeForwarding = @Sendable (_ method: HTTPRequest.Method, _ path: String, _ query: String) async -> Void

    private var calls: [String: Int] = [:]
    private var forwardedCalls: [String: Int] = [:]
    private var forwardedFor: [String: [String]] = [:]
    private var log: [ForwardedCall] = []

    /// One call that reached the backend: when it arrived, what it asked, what the backend answered.
    public struct ForwardedCall: Sendable {
        public let arrivedAt: Date
        public let method: HTTPRequest.Method
        public let path: String
        /// The query string, without `?` (empty when none).
        public let query: String
        /// The `X-Forwarded-For` header, `nil` when the call had none.
        public let forwardedFor: String?
        public let status: Int
    }

    /// Every call that reached the backend, in the order the answers came back.
    public func forwardedLog() -> [ForwardedCall] {
        log
    }

    private func record(_ call: ForwardedCall) {
        log.append(call)
    }

    /// The `X-Forwarded-For` values of the calls with this method and path that reached the
    /// backend, in order (empty text for a call without one).
    public func forwardedFor(_ method: HTTPRequest.Method, _ path: String) -> [String] {
        forwardedFor["\(method) \(path)", default: []]
    }

    /// How many calls with this method and path reached the backend.
    public func forwarded(_ method: HTTPRequest.Method, _ path: String) -> Int {
        forwardedCalls["\(method) \(path)", default: 0]
    }

    /// How many calls with this method and path arrived at the proxy, forwarded or not yet.
    public func arrived(_ method: HTTPRequest.Method, _ path: String) -> Int {
        calls["\(method) \(path)", default: 0]
    }

    /// How many calls of any kind reached the backend.
    public func forwardedInAll() -> Int {
        forwardedCalls.values.reduce(0, +)
    }

    private func count(_ method: HTTPRequest.Method, _ path: String) -> Int {
        calls["\(method) \(path)", default: 0] += 1
        return calls["\(method) \(path)", default: 0]
    }

    private func countForwarded(_ method: HTTPRequest.Method, _ path: String, forwardedFor address: String?) {
        forwardedCalls["\(method) \(path)", default: 0] += 1
        forwardedFor["\(method) \(path)", default: []].append(address ?? "")
    }

    /// Runs a proxy to `backend` (an origin such as `http://127.0.0.1:8123`) around `body`,
    /// which receives the proxy's origin.
    /// `beforeForwarding` runs as each call arrives, before the plan decides, with its query:
    /// a test changes the backend there at an exact point of a sequence of reads.
    public static func run<Result: Sendable>(
        to backend: String, plan: @escaping Plan, beforeForwarding: BeforeForwarding? = nil,
        _ body: (FaultingProxy, String) async throws -> Result
    ) async throws -> Result {
        let proxy = FaultingProxy()
        let router = Router(context: Context.self)
        let handler: @Sendable (Request, Context) async throws -> Response = { request, context in
            await beforeForwarding?(request.method, request.uri.path, request.uri.query ?? "")
            return try await proxy.handle(request, backend: backend, plan: plan, connection: context.channel)
        }
        for method in [HTTPRequest.Method.get, .post, .patch, .put, .delete] {
            router.on("**", method: method, use: handler)
        }
        return try await withRunningRouter(router) { port in
            try await body(proxy, "http://127.0.0.1:\(port)")
        }
    }

    private func handle(_ request: Request, backend: String, plan: Plan, connection: any Channel) async throws -> Response {
        let method = request.method
        let path = request.uri.path
        switch plan(method, path, count(method, path)) {
        case .answerWithoutForwarding(let status):
            return Self.error(status)
        case .answerAfterForwarding(let status):
            _ = try await forward(request, to: backend)
            return Self.error(status)
        case .pass:
            return try await forward(request, to: backend)
        case .passAfter(let delay):
            try await Task.sleep(for: delay)
            return try await forward(request, to: backend)
        case .dropAnswerAfterForwarding:
            _ = try await forward(request, to: backend)
            // Closed before a byte of the answer is written: the caller reads a dropped connection.
            try? await connection.close().get()
            return Self.error(.badGateway)
        }
    }

    private func forward(_ request: Request, to backend: String) async throws -> Response {
        let arrivedAt = Date()
        let forwardedFor = request.headers.first { $0.name.canonicalName == "x-forwarded-for" }?.value
        countForwarded(request.method, request.uri.path, forwardedFor: forwardedFor)
        var outgoing = HTTPClientRequest(url: backend + request.uri.description)
        outgoing.method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        let body = try await request.body.collect(upTo: 4 * 1024 * 1024)
        if body.readableBytes > 0 { outgoing.body = .bytes(body) }
        let answer = try await SandboxFixture.httpClient.execute(outgoing, timeout: .seconds(30))
        let bytes = try await answer.body.collect(upTo: 16 * 1024 * 1024)
        record(
            ForwardedCall(
                arrivedAt: arrivedAt, method: request.method, path: request.uri.path, query: request.uri.query ?? "",
                forwardedFor: forwardedFor, status: Int(answer.status.code)))
        // The console reads only the status, the content type and the body.
        var headers = HTTPFields()
        if let type = answer.headers.first(name: "content-type") { headers[.contentType] = type }
        return Response(status: .init(code: Int(answer.status.code)), headers: headers, body: .init(byteBuffer: bytes))
    }

    private static func error(_ status: HTTPResponse.Status) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html"],
            body: .init(byteBuffer: ByteBuffer(string: "<h1>\(status.code) \(status.reasonPhrase)</h1>")))
    }
}
