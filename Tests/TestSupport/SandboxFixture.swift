import AsyncHTTPClient
import BookCornersAPI
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import Sandbox

/// A sandbox backend on a loopback port with its own temporary database.
public struct SandboxFixture: Sendable {
    public let port: Int
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/api/v1/")! }

    /// Runs a fresh sandbox (or one on `databasePath`, to test restarts) around `body`.
    /// A fixed `port` still taken is tried again for up to `portWait`.
    public static func run<Result: Sendable>(
        rateLimits: RateLimitPolicy? = nil,
        accessTokenLifetime: TimeInterval = 300,
        databasePath: String? = nil,
        libraries: Int = 500,
        seed: UInt64 = 42,
        port: Int = 0,
        portWait: Duration = .seconds(30),
        requestLogPath: String? = nil,
        apnsStandIn: APNsStandIn? = nil,
        extraStaff: Int = 0,
        crowdedQueues: Int = 0,
        _ body: (SandboxFixture) async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = SandboxConfiguration(
            databasePath: databasePath ?? directory.path("sandbox.sqlite"),
            accessTokenLifetime: accessTokenLifetime, rateLimits: rateLimits, seed: seed,
            libraryCount: libraries, requestLogPath: requestLogPath, extraStaff: extraStaff,
            crowdedQueues: crowdedQueues)
        var logger = Logger(label: "sandbox-test")
        logger.logLevel = .warning
        return try await withRunningApplication(
            portWait: portWait,
            { onRunning in
                try buildSandboxApplication(configuration: configuration, apnsStandIn: apnsStandIn, port: port, logger: logger, onServerRunning: onRunning)
            }
        ) { port in try await body(SandboxFixture(port: port)) }
    }

    /// A client that shows redirects instead of following them; it lives as long as the tests.
    public static let httpClient = HTTPClient(
        eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    /// One raw HTTP exchange, for checking exactly what the sandbox answers.
    public func raw(
        _ method: HTTPMethod, _ path: String, token: String? = nil, body: [UInt8]? = nil,
        headers: [(String, String)] = []
    ) async throws -> RawAnswer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)" + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await Self.httpClient.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        return RawAnswer(
            status: Int(response.status.code), headers: response.headers.map { ($0.name.lowercased(), $0.value) },
            body: Data(bytes.readableBytesView))
    }

    /// JSON body as a string for `raw`.
    public func raw(_ method: HTTPMethod, _ path: String, token: String? = nil, json: String) async throws -> RawAnswer {
        try await raw(method, path, token: token, body: Array(json.utf8))
    }

    /// Signs in over raw HTTP and answers the access token.
    public func accessToken(username: String = SeedAccounts.demoStaffUsername, password: String = SeedAccounts.demoStaffPassword) async throws -> String {
        let answer = try await raw(.POST, "/api/v1/auth/login", json: #"{"username": "\#(username)", "password": "\#(password)"}"#)
        guard let object = try answer.jsonObject(), let access = object["access"] as? String else {
            throw SandboxFixtureError.signInFailed(answer.status)
        }
        return access
    }
}

/// One HTTP exchange with any server, redirects not followed.
public func rawHTTP(
    _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: [UInt8]? = nil
) async throws -> RawAnswer {
    var request = HTTPClientRequest(url: url)
    request.method = method
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
    let response = try await SandboxFixture.httpClient.execute(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
    return RawAnswer(
        status: Int(response.status.code), headers: response.headers.map { ($0.name.lowercased(), $0.value) },
        body: Data(bytes.readableBytesView))
}

public enum SandboxFixtureError: Error {
    case signInFailed(Int)
}

/// What the server answered, unparsed.
public struct RawAnswer: Sendable {
    public let status: Int
    public let headers: [(String, String)]
    public let body: Data

    public func header(_ name: String) -> String? {
        headers.first { $0.0 == name.lowercased() }?.1
    }

    public func jsonObject() throws -> [String: Any]? {
        try JSONSerialization.jsonObject(with: body) as? [String: Any]
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}
