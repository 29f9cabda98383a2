import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Sandbox
import TestSupport
import Testing

@testable import ConsoleServer

/// Where the repository's templates and static files are, for tests.
enum RepositoryPaths {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var templates: String { root.appendingPathComponent("Templates").path }
    static var publicFiles: String { root.appendingPathComponent("Public").path }
}

/// The console, built as `serve` builds it, on a temporary database, against `backendURL`.
enum ConsoleFixture {
    /// Every route the console's router registers, with its method, as `serve` builds the router
    /// (against a backend nobody answers: building it calls none).
    static func registeredRoutes() async throws -> [(method: String, path: String)] {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = configuration(backendURL: try #require(URL(string: "http://127.0.0.1:1/api/v1/")), directory: directory)
        let dependencies = try await makeDependencies(configuration: configuration, logger: quietLogger)
        let routes = buildRouter(dependencies: dependencies).routes
        try await dependencies.client.shutdown()
        return routes.map { (method: $0.method.rawValue, path: $0.path.description) }
    }

    static func configuration(
        backendURL: URL, directory: TemporaryDirectory, idleTimeout: TimeInterval = 30 * 60, behindTLSProxy: Bool = false
    ) -> ConsoleConfiguration {
        var configuration = ConsoleConfiguration(
            port: 0, databasePath: directory.path("console.sqlite"), backendURL: backendURL,
            templatesDirectory: RepositoryPaths.templates, publicDirectory: RepositoryPaths.publicFiles,
            behindTLSProxy: behindTLSProxy, sessionIdleTimeout: idleTimeout,
            // Off unless a test turns it on: its reads would disturb tests that count the console's calls.
            mirror: nil)
        // Calls other than the mirror's and the watcher's are budgeted only where a test sets limits.
        configuration.backendLimits = nil
        // The sandbox acts on a request at once: a lost answer is re-checked 26 s after its send
        // (21-s deadline + 5 s) instead of the production bound's 111 s.
        configuration.decisionInFlightLimit = 5
        // The sandbox counts a call when it arrives: one window per call, as its short test windows expect.
        configuration.backendCountSpan = 0
        // Off unless a test turns it on, as the mirror is: its auth/me calls would disturb tests
        // that count the console's calls. `console serve` (the binary tests) runs it.
        configuration.staffRecheckInBackground = false
        return configuration
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "console-test")
        logger.logLevel = .critical
        return logger
    }

    /// Runs the console on a loopback port (its services running) against a fresh sandbox,
    /// whose database is `directory.path("sandbox.sqlite")`: a test may add rows to it.
    /// `configure` adjusts the console's configuration before it starts.
    static func withConsole<Result: Sendable>(
        idleTimeout: TimeInterval = 30 * 60, behindTLSProxy: Bool = false, rateLimits: RateLimitPolicy? = nil,
        mirror: MirrorStart = .filled, configure: @escaping @Sendable (inout ConsoleConfiguration) async -> Void = { _ in },
        logger: Logger = quietLogger,
        _ body: @escaping @Sendable (Browser, SandboxFixture, TemporaryDirectory) async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try await SandboxFixture.run(rateLimits: rateLimits, databasePath: directory.path("sandbox.sqlite")) { sandbox in
            var settings = configuration(backendURL: sandbox.baseURL, directory: directory, idleTimeout: idleTimeout, behindTLSProxy: behindTLSProxy)
            await configure(&settings)
            let app = try await buildConsoleApplication(configuration: settings, logger: logger)
            return try await withMirror(mirror, directory: directory, backendURL: sandbox.baseURL) { fill in
                try await app.test(.live) { client in
                    try await body(Browser(client: client, afterSignIn: fill), sandbox, directory)
                }
            }
        }
    }

    /// Signs staff in over `client` once and fills the mirror with that session: for tests whose
    /// own browser is not a `Browser` (a real one, say).
    static func fillMirror(client: any TestClientProtocol, directory: TemporaryDirectory, backendURL: URL) async throws {
        try await withMirror(.filled, directory: directory, backendURL: backendURL) { fill in
            _ = try await Browser(client: client, afterSignIn: fill).signIn()
        }
    }

    /// Runs `body` with the hook that fills the mirror after a sign-in (`nil` for an empty mirror).
    static func withMirror<Result: Sendable>(
        _ start: MirrorStart, directory: TemporaryDirectory, backendURL: URL,
        _ body: (_ fill: (@Sendable () async -> Void)?) async throws -> Result
    ) async throws -> Result {
        guard start == .filled else { return try await body(nil) }
        let filler = try MirrorFiller(directory: directory, backendURL: backendURL)
        do {
            let result = try await body { await filler.fill() }
            try await filler.shutdown()
            return result
        } catch {
            try? await filler.shutdown()
            throw error
        }
    }

    /// As `withConsole`, with a pass-through `FaultingProxy` between console and sandbox that
    /// counts the calls the console makes.
    static func withCountedConsole<Result: Sendable>(
        mirror: MirrorStart = .filled, configure: @escaping @Sendable (inout ConsoleConfiguration) async -> Void = { _ in },
        _ body: @escaping @Sendable (Browser, SandboxFixture, FaultingProxy, TemporaryDirectory) async throws -> Result
    ) async throws -> Result {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        return try await SandboxFixture.run(databasePath: directory.path("sandbox.sqlite")) { sandbox in
            try await FaultingProxy.run(to: "http://127.0.0.1:\(sandbox.port)", plan: { _, _, _ in .pass }) { proxy, origin in
                guard let url = URL(string: origin + "/api/v1/") else { throw URLError(.badURL) }
                var settings = configuration(backendURL: url, directory: directory)
                await configure(&settings)
                let app = try await buildConsoleApplication(configuration: settings, logger: quietLogger)
                // The fill reads the sandbox directly: the proxy counts only the console's own calls.
                return try await withMirror(mirror, directory: directory, backendURL: sandbox.baseURL) { fill in
                    try await app.test(.live) { client in
                        try await body(Browser(client: client, afterSignIn: fill), sandbox, proxy, directory)
                    }
                }
            }
        }
    }
}

/// A tiny browser over the test client: keeps cookies, reads forms' CSRF tokens.
final class Browser: @unchecked Sendable {
    let client: any TestClientProtocol
    private(set) var cookies: [String: String] = [:]
    /// Sent with every request (e.g. `Origin`, `X-Forwarded-For`), after the cookies.
    var headers: [(String, String)] = []
    /// Run after every sign-in (the fixture fills the mirror with it).
    let afterSignIn: (@Sendable () async -> Void)?

    /// `cookies` carries a session over from another browser (the same person after a restart).
    init(client: any TestClientProtocol, cookies: [String: String] = [:], afterSignIn: (@Sendable () async -> Void)? = nil) {
        self.client = client
        self.cookies = cookies
        self.afterSignIn = afterSignIn
    }

    @discardableResult
    func get(_ path: String) async throws -> Page {
        try await send(path, method: .get, body: nil)
    }

    @discardableResult
    func post(_ path: String, form: [(String, String)]) async throws -> Page {
        let body = form.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return try await send(path, method: .post, body: body)
    }

    /// Posts `body` as it is, declared as `contentType`: for requests no page's form would send.
    @discardableResult
    func post(_ path: String, body: String, contentType: String) async throws -> Page {
        try await send(path, method: .post, body: body, contentType: contentType)
    }

    /// Signs in through the real form; answers the final page after the redirect.
    @discardableResult
    func signIn(_ login: String = SeedAccounts.demoStaffUsername, password: String = SeedAccounts.demoStaffPassword, next: String = "/") async throws -> Page {
        let form = try await get("/sign-in")
        let page = try await post("/sign-in", form: [("csrf", form.csrfToken ?? ""), ("login", login), ("password", password), ("next", next)])
        await afterSignIn?()
        return page
    }

    private func send(
        _ path: String, method: HTTPRequest.Method, body: String?, contentType: String = "application/x-www-form-urlencoded"
    ) async throws -> Page {
        var headers: HTTPFields = [:]
        if !cookies.isEmpty {
            headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        }
        if body != nil { headers[.contentType] = contentType }
        for (name, value) in self.headers {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        let response = try await client.execute(
            uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        for header in response.headers[values: .setCookie] {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if header.contains("Max-Age=0") { cookies[pair[0]] = nil } else { cookies[pair[0]] = pair[1] }
        }
        return Page(status: response.status, headers: response.headers, html: String(buffer: response.body))
    }

    private static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// One answer as a page.
struct Page: Sendable, CustomStringConvertible {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let html: String

    var location: String? { headers[.location] }

    /// The value of the first `<input name="…" value="…">` after `marker` (or anywhere when
    /// `marker` is empty). A marker missing from the page fails the calling test: searching the
    /// whole page instead could find another form's field.
    func field(_ name: String, after marker: String = "", sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        var start = html.startIndex
        if !marker.isEmpty {
            guard let found = html.range(of: marker) else {
                Issue.record(
                    "the page has no \(marker.debugDescription) to look for field \(name.debugDescription) after: \(self)", sourceLocation: sourceLocation)
                return nil
            }
            start = found.upperBound
        }
        guard let range = html.range(of: "name=\"\(name)\" value=\"", range: start..<html.endIndex) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    /// The first form's CSRF token.
    var csrfToken: String? {
        guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    func contains(_ text: String) -> Bool { html.contains(text) }

    /// Short, so a failed expectation does not print the whole page.
    var description: String {
        let main = html.range(of: "<main").map { String(html[$0.lowerBound...].prefix(300)) } ?? String(html.prefix(300))
        return "\(status.code) \(main)…"
    }
}
